export { createErrorHandler, errorReply, pinoErrorLog, requestIdOf, toReachError } from './error-handler.js';
export { nodeIncoming, requestHeader } from './node-incoming.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  limitBody,
  parseJsonText,
  readIncoming,
  readJson,
  tooLarge,
} from './read-json.js';
export { parseOrThrow, validationError } from './validation.js';
