import { ReachError } from '@agent-reach/sdk/protocol';
import type { z } from 'zod';

function describe(issue: z.core.$ZodIssue): string {
  const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
  return `${path}: ${issue.message}`;
}

/** A VALIDATION_FAILED error naming the failing fields (at most five). */
export function validationError(error: z.ZodError, what = 'request'): ReachError {
  const issues = error.issues.slice(0, 5).map(describe);
  const more = error.issues.length > 5 ? ` (and ${error.issues.length - 5} more)` : '';
  return new ReachError('VALIDATION_FAILED', `invalid ${what}: ${issues.join('; ')}${more}`, {
    data: { fields: error.issues.slice(0, 20).map((issue) => issue.path.map(String).join('.')) },
  });
}

/** Parses `value` with `schema` or throws VALIDATION_FAILED naming the field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what?: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error, what);
  return parsed.data;
}
