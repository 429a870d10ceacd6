/** The orchestrator's HTTP API: runs, SSE, traces, discovery, probes and metrics. */
export { type ApiDeps, createApp } from './app.js';
export { requireToken } from './auth.js';
export { OrchestratorMetrics } from './metrics.js';
export { RunBody } from './schemas.js';
export type { StreamOptions } from './stream-route.js';
export * from './wire-schemas.js';
