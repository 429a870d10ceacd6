/** The orchestrator's public API. */
export * from './context/index.js';
export * from './deliverables/index.js';
export * from './plan/index.js';
export * from './planner/index.js';
export * from './traces/index.js';
