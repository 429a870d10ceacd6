/** Agent Reach registry: registration, liveness, DNS publication; build it with `createRegistry` or `startRegistry`. */
export { type AppDeps, agentRoutes, createApp, probeRoutes, type ReadinessCheck } from './api/index.js';
export {
  bearerToken,
  compileCapabilityPattern,
  hashLeaseToken,
  leaseTokenMatches,
  TokenAuthority,
} from './auth/index.js';
export {
  compileRegistryConfig,
  type LogLevel,
  loadRegistryConfig,
  type RegistryConfig,
  type ResolvedToken,
  registryConfigFrom,
} from './config.js';
export {
  createRegistryZone,
  createZoneRoutes,
  type DnsResponder,
  type DnsResponderOptions,
  exportZoneFile,
  fuzzPacket,
  handleMessage,
  parseIndexTxt,
  seededRandom,
  startDnsResponder,
  startRegistryDns,
  Zone,
  type ZoneOptions,
  type ZoneSnapshot,
} from './dns/index.js';
export { createErrorHandler, parseOrThrow, readJson, toReachError } from './http/index.js';
export { InstanceCache } from './instances/instance-cache.js';
export type { InstanceChanges, InstanceSource } from './instances/instance-source.js';
export { type LivenessEntry, LivenessTable, StormGuard, type StormPhase, Sweeper } from './liveness/index.js';
export { registryLogger } from './logger.js';
export { type HeartbeatOutcome, RegistryMetrics } from './metrics/index.js';
export {
  cardUrlOf,
  createRegistrationVerbs,
  type DeregisterResponse,
  type InstanceFilter,
  instanceView,
  type RegistrationVerbs,
} from './registration/index.js';
export { createRegistry, type Registry, type RegistryOptions, type RegistryParts } from './registry.js';
export {
  ConflictBook,
  ConflictReporter,
  conflictReportKey,
  createRoutingRoutes,
  OutcomeBook,
  Router,
  type RouterDeps,
  type RoutingLiveness,
  RoutingService,
} from './routing/index.js';
export { type RunningRegistry, startRegistry } from './serve.js';
export {
  DEFAULT_SRV_PRIORITY,
  type SkydnsEntry,
  type SkydnsService,
  type SrvWeights,
  skydnsEntries,
  skydnsName,
  skydnsPath,
} from './skydns/index.js';
export * from './store/index.js';
export { PublishedWeight, WeightTable } from './weights/index.js';
