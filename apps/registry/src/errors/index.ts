export { createErrorHandler, requestIdOf, toReachError } from './error-handler.js';
export { readJson } from './read-json.js';
export { parseOrThrow, validationError } from './validation.js';
