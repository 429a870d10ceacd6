/** Node-side helpers the control plane's processes share. */
export { takePidLock } from './pid-lock.js';
export { type ProcessLoggerOptions, processLogger } from './process-logger.js';
