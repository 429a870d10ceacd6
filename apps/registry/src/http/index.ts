export { createErrorHandler, errorReply, pinoErrorLog, requestIdOf, toReachError } from './error-handler.js';
export { nodeIncoming, requestHeader } from './node-incoming.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  parseJsonText,
  readIncoming,
  readJson,
  setBodyLimit,
  tooLarge,
} from './read-json.js';
export { policyMiddleware, RequestPolicy, routeLabel } from './request-policy.js';
export { parseOrThrow, validationError } from './validation.js';
