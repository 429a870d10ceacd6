import { randomUUID } from 'node:crypto';
import { ERROR_HTTP_STATUS, type ErrorBody, isReachError, ReachError } from '@agent-reach/sdk/protocol';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';

/** Where unexpected errors are reported; their causes never reach the client. */
export type ErrorLog = (fields: Record<string, unknown>, message: string) => void;

/** The request id for error bodies: the caller's `x-request-id` or a fresh one. */
export function requestIdOf(c: Context): string {
  const given = c.req.header('x-request-id');
  return given && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
}

/** Anything thrown, as a ReachError; hono's HTTP errors keep their meaning, the rest is INTERNAL. */
export function toReachError(error: unknown): ReachError {
  if (isReachError(error)) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413) return new ReachError('PAYLOAD_TOO_LARGE', 'the request body is too large');
    if (error.status === 404) return new ReachError('NOT_FOUND', error.message || 'not found');
    if (error.status === 401) return new ReachError('UNAUTHORIZED', error.message || 'unauthorized');
    if (error.status < 500) return new ReachError('BAD_REQUEST', error.message || 'bad request');
  }
  return new ReachError('INTERNAL', 'internal error', { cause: error });
}

/** The one `onError`: `{code, message, requestId}` with the status of the code. */
export function createErrorHandler(log: ErrorLog) {
  return (error: unknown, c: Context): Response => {
    const reach = toReachError(error);
    const requestId = requestIdOf(c);
    const status = ERROR_HTTP_STATUS[reach.code] ?? 500;
    if (status >= 500)
      log({ err: reach.cause ?? reach, code: reach.code, requestId, path: c.req.path }, 'request failed');
    const body: ErrorBody = { code: reach.code, message: reach.message, requestId };
    if (reach.data && reach.code !== 'INTERNAL') body.data = reach.data;
    return c.json(body, status as ContentfulStatusCode);
  };
}

/** Parses `value` or throws VALIDATION_FAILED naming the fields. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`);
  throw new ReachError('VALIDATION_FAILED', `invalid ${what}: ${issues.join('; ')}`, {
    data: { fields: parsed.error.issues.map((i) => i.path.join('.')) },
  });
}

/** Reads the body as JSON; empty or malformed JSON is INVALID_JSON, never a 5xx. */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
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
