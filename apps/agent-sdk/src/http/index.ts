/** The hono side of the contract: request ids, `{code, message, requestId}` error replies, JSON body input. */
export * from './http-errors.js';
export * from './http-input.js';
export * from './openapi.js';
export { readSse, type SseMessage } from './sse-reader.js';
