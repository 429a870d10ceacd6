/** Node-side helpers the control plane's processes share. */

export {
  type ConnectionLimits,
  type ConnectionStats,
  connectionServerOptions,
  DEFAULT_CONNECTION_LIMITS,
  guardConnections,
} from './connection-guard.js';
export { type ConnectionFigures, ConnectionMetrics } from './connection-metrics.js';
export { takePidLock } from './pid-lock.js';
export { type ProcessLoggerOptions, processLogger } from './process-logger.js';
