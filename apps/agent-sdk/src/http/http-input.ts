import type { Context } from 'hono';
import type { z } from 'zod';
import { ReachError } from '../protocol/errors.js';
import { issueText } from '../protocol/issue-text.js';

/** The PAYLOAD_TOO_LARGE error for a body limit of `maxBytes`. */
export function tooLarge(maxBytes: number): ReachError {
  return new ReachError('PAYLOAD_TOO_LARGE', `the request body is larger than ${maxBytes} bytes`, {
    data: { max_body_bytes: maxBytes },
  });
}

/** Parses body text as JSON; empty or malformed text is INVALID_JSON, never a 5xx. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '')
    throw new ReachError('INVALID_JSON', 'the request body is empty; send a JSON object');
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ReachError('INVALID_JSON', `the request body is not valid JSON: ${(cause as Error).message}`, {
      cause,
    });
  }
}

/** Reads a hono request body as JSON with {@link parseJsonText}. */
export async function readJson(c: Context): Promise<unknown> {
  return parseJsonText(await c.req.text());
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
  return `${path}: ${issueText(issue)}`;
}

/** A VALIDATION_FAILED error naming the failing fields (at most five in the message, twenty in `data.fields`). */
export function validationError(error: z.ZodError, what = 'request'): ReachError {
  const issues = error.issues.slice(0, 5).map(describeIssue);
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
