import {
  createErrorHandler as createSharedErrorHandler,
  type ErrorLog,
  errorReply as sharedErrorReply,
} from '@agent-reach/sdk/http';
import type { ErrorBody } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';

// The mapping itself lives in the SDK (shared with the orchestrator and console); this only adapts pino.
export { requestIdOf, toReachError } from '@agent-reach/sdk/http';

/** Reports unexpected errors to a pino logger at `error` level. */
export function pinoErrorLog(logger: Logger): ErrorLog {
  return (fields, message) => logger.error(fields, message);
}

/** The status and body for an error; 5xx causes are logged, never sent. */
export function errorReply(
  error: unknown,
  request: { requestId: string; method: string; path: string },
  logger: Logger,
): { status: number; body: ErrorBody } {
  return sharedErrorReply(error, request, pinoErrorLog(logger));
}

/** Builds the app's `onError`: `{code, message, requestId}` with the status of the code; causes are logged, not sent. */
export function createErrorHandler(logger: Logger) {
  return createSharedErrorHandler(pinoErrorLog(logger));
}
