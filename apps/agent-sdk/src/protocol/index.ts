/** The Agent Reach wire contract: zod schemas and the shared error type. */
export * from './a2a-wire.js';
export * from './card.js';
export * from './catalog.js';
export * from './declaration.js';
export * from './declaration-schema.js';
export * from './dns-aid-txt.js';
export * from './dns-names.js';
export * from './duration.js';
export * from './errors.js';
export * from './external-agent.js';
export * from './governance.js';
export * from './host-port.js';
export * from './invoke.js';
export * from './registration.js';
export * from './route.js';
export * from './route-order.js';
