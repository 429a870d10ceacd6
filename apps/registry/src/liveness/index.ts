export { bindLivenessToInstances } from './bind-cache.js';
export { httpInstanceProber, type InstanceProber, type ProbeVerdict } from './instance-prober.js';
export { type LivenessEntry, LivenessTable, type Tombstone } from './liveness-table.js';
export { LivenessBatch, LivenessFact, SharedFacts, type SharedFactsDeps } from './shared-facts.js';
export { StormGuard, type StormGuardDeps, type StormPhase } from './storm-guard.js';
export { Sweeper } from './sweeper.js';
