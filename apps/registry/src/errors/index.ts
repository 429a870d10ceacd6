export { createErrorHandler, requestIdOf, toReachError } from './error-handler.js';
export { nodeIncoming, requestHeader } from './node-incoming.js';
export { DEFAULT_MAX_BODY_BYTES, limitBody, readJson } from './read-json.js';
export { parseOrThrow, validationError } from './validation.js';
