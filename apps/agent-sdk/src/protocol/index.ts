/** The Agent Reach wire contract: zod schemas and the shared error type. */
export * from './card.js';
export * from './catalog.js';
export * from './config.js';
export * from './config-loader.js';
export * from './declaration.js';
export * from './duration.js';
export * from './errors.js';
export * from './http-errors.js';
export * from './http-input.js';
export * from './invoke.js';
export * from './registration.js';
export * from './route.js';
export * from './route-order.js';
