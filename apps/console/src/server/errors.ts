import { randomUUID } from 'node:crypto';
import { ERROR_HTTP_STATUS, type ErrorBody, isReachError, ReachError } from '@agent-reach/sdk/protocol';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Where unexpected errors are reported; their causes never reach the client. */
export type ErrorLog = (fields: Record<string, unknown>, message: string) => void;

function toReachError(error: unknown): ReachError {
  if (isReachError(error)) return error;
  if (error instanceof HTTPException && error.status === 413)
    return new ReachError('PAYLOAD_TOO_LARGE', 'the request body is too large');
  if (error instanceof HTTPException && error.status < 500)
    return new ReachError('BAD_REQUEST', error.message || 'bad request');
  return new ReachError('INTERNAL', 'internal error', { cause: error });
}

/** The console's one `onError`: `{code, message, requestId}` with the status of the code. */
export function createErrorHandler(log: ErrorLog) {
  return (error: unknown, c: Context): Response => {
    const reach = toReachError(error);
    const given = c.req.header('x-request-id');
    const requestId = given && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
    const status = ERROR_HTTP_STATUS[reach.code] ?? 500;
    if (status >= 500)
      log({ err: reach.cause ?? reach, code: reach.code, requestId, path: c.req.path }, reach.message);
    const body: ErrorBody = { code: reach.code, message: reach.message, requestId };
    if (reach.data && reach.code !== 'INTERNAL') body.data = reach.data;
    return c.json(body, status as ContentfulStatusCode);
  };
}
