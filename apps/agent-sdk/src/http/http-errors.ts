import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_HTTP_STATUS, isReachError, ReachError } from '../protocol/errors.js';
import type { ErrorBody } from '../protocol/registration.js';

/** Where unexpected errors are reported; their causes never reach the client. */
export type ErrorLog = (fields: Record<string, unknown>, message: string) => void;

// Echoed into bodies and logs, so only plain tokens are taken from the caller.
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id for error bodies from an `x-request-id` header value: the caller's or a fresh one. */
export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && REQUEST_ID.test(header) ? header : randomUUID();
}

/** The request id for error bodies: the caller's `x-request-id` or a fresh one. */
export function requestIdOf(c: Context): string {
  return requestIdFrom(c.req.header('x-request-id'));
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

/** The status and `{code, message, requestId}` body for anything thrown; 5xx causes are logged, never sent. */
export function errorReply(
  error: unknown,
  request: { requestId: string; method: string; path: string },
  log: ErrorLog,
): { status: number; body: ErrorBody } {
  const reach = toReachError(error);
  const status = ERROR_HTTP_STATUS[reach.code] ?? 500;
  if (status >= 500) log({ err: reach.cause ?? reach, code: reach.code, ...request }, 'request failed');
  const body: ErrorBody = { code: reach.code, message: reach.message, requestId: request.requestId };
  if (reach.data && reach.code !== 'INTERNAL') body.data = reach.data;
  return { status, body };
}

/** Builds an app's one hono `onError` from {@link errorReply}. */
export function createErrorHandler(log: ErrorLog) {
  return (error: unknown, c: Context): Response => {
    const request = { requestId: requestIdOf(c), method: c.req.method, path: c.req.path };
    const { status, body } = errorReply(error, request, log);
    return c.json(body, status as ContentfulStatusCode);
  };
}
