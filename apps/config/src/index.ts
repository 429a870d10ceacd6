/** The config file shared by the registry, orchestrator and console (the SDK never reads it). */
export { clientOptionsFromConfig } from './client-options.js';
export { type ConnectionLimits, connectionLimitsOf } from './connection-limits.js';
export { loadConfig } from './load-config.js';
export * from './reach-config.js';
