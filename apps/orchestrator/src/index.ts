/** Agent Reach orchestrator: discovery over DNS, planning, layered execution, traces, OTel and the run API. */
export * from './api/index.js';
export { compileOrchestratorConfig, loadOrchestratorConfig, type OrchestratorConfig } from './config.js';
export * from './context/index.js';
export * from './deliverables/index.js';
export * from './discovery/index.js';
export * from './execution/index.js';
export {
  Orchestrator,
  type OrchestratorDeps,
  type RunRequest,
  type RunSummary,
  type StartedRun,
} from './orchestrator.js';
export * from './plan/index.js';
export * from './planner/index.js';
export { type RunningOrchestrator, type StartOptions, startOrchestrator } from './serve.js';
export * from './telemetry/index.js';
export * from './traces/index.js';
