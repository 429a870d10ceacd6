export { type HeartbeatOutcome, RegistryMetrics, type StateCounts } from './registry-metrics.js';
