import { randomUUID } from 'node:crypto';
import { ERROR_HTTP_STATUS, type ErrorBody, isReachError, ReachError } from '@agent-reach/sdk/protocol';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';

/** The request id for error bodies: the caller's `x-request-id` or a fresh one. */
export function requestIdOf(c: Context): string {
  const given = c.req.header('x-request-id');
  return given && given.length <= 128 ? given : randomUUID();
}

/** Turns whatever a handler threw into a ReachError; hono's own HTTP errors keep their meaning. */
export function toReachError(error: unknown): ReachError {
  if (isReachError(error)) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413) return new ReachError('PAYLOAD_TOO_LARGE', 'the request body is too large');
    if (error.status === 404) return new ReachError('NOT_FOUND', error.message || 'not found');
    if (error.status < 500) return new ReachError('BAD_REQUEST', error.message || 'bad request');
  }
  return new ReachError('INTERNAL', 'internal error', { cause: error });
}

/** The status and body for an error; 5xx causes are logged, never sent. */
export function errorReply(
  error: unknown,
  request: { requestId: string; method: string; path: string },
  logger: Logger,
): { status: number; body: ErrorBody } {
  const reach = toReachError(error);
  const status = ERROR_HTTP_STATUS[reach.code] ?? 500;
  if (status >= 500)
    logger.error({ err: reach.cause ?? reach, code: reach.code, ...request }, 'request failed');
  const body: ErrorBody = { code: reach.code, message: reach.message, requestId: request.requestId };
  if (reach.data && reach.code !== 'INTERNAL') body.data = reach.data;
  return { status, body };
}

/** Builds the app's `onError`: `{code, message, requestId}` with the status of the code; causes are logged, not sent. */
export function createErrorHandler(logger: Logger) {
  return (error: unknown, c: Context): Response => {
    const request = { requestId: requestIdOf(c), method: c.req.method, path: c.req.path };
    const { status, body } = errorReply(error, request, logger);
    return c.json(body, status as ContentfulStatusCode);
  };
}
