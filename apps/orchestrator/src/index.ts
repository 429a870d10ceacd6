/** Agent Reach orchestrator, as other packages start and measure it: the server, its config, discovery and trace store. */
export {
  DeletedWire,
  DiscoveryWire,
  RunSummaryWire,
  StartedWire,
  TraceDetailWire,
  TracePageWire,
} from './api/index.js';
export { compileOrchestratorConfig } from './config.js';
export {
  BIND_POOL,
  CapabilityIndex,
  type Discovery,
  httpCardFetcher,
  httpHealthCheck,
} from './discovery/index.js';
export type { RunSummary } from './orchestrator.js';
export { OfflinePlanner } from './planner/index.js';
export { type RunningOrchestrator, startOrchestrator } from './serve.js';
export { openPostgresTraceStore } from './traces/index.js';
