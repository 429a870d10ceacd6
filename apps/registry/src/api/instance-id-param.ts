import { quoteInput, ReachError } from '@agent-reach/sdk/protocol';

/** An instance id in a path: a DNS host label. */
const INSTANCE_ID = /^[a-z][a-z0-9-]{1,62}$/;

/**
 * A path segment as every route sees it: percent-decoded the way hono decodes `:param`s (a malformed
 * escape is left as it is), so the node:http fast paths and the hono routes agree on ids and errors.
 */
export function decodePathSegment(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The instance id of a (decoded) path segment, or VALIDATION_FAILED quoting at most 80 characters of it. */
export function instanceIdParam(value: string | undefined): string {
  if (value === undefined || !INSTANCE_ID.test(value)) {
    throw new ReachError(
      'VALIDATION_FAILED',
      `invalid instance id: ${JSON.stringify(value === undefined ? value : quoteInput(value))}`,
    );
  }
  return value;
}
