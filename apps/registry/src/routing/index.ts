/** Routing: the semantic route API, outcomes, conflicts and the route cache. */

export {
  CONFLICT_REPORTS_PREFIX,
  ConflictReporter,
  conflictReportKey,
  utcDate,
} from './conflict-report.js';
export { ConflictBook, type ConflictEntry, toConflictView } from './conflicts.js';
export { type IndexedOperation, OperationIndex } from './operation-index.js';
export {
  DEFAULT_PRIOR,
  type LatencyStats,
  OutcomeBook,
  OutcomeWindow,
  type RecordSummary,
} from './outcome-window.js';
export { RouteCache, routeCacheKey } from './route-cache.js';
export { Router, type RouterDeps } from './router.js';
export { type LivenessSnapshot, type RoutingLiveness, unknownLiveness } from './routing-liveness.js';
export { type InstanceRate, RoutingMetrics } from './routing-metrics.js';
export { createRoutingRoutes, type RoutingRoutesDeps } from './routing-routes.js';
export { RoutingService, type RoutingServiceDeps, type WeightedZone } from './routing-service.js';
export {
  healthFactor,
  loadFactor,
  type MatchVia,
  matchQuality,
  priorityFactor,
  SCORE,
  scoreOf,
  warmupFactor,
} from './score.js';
export { type DeclarationVersions, VersionPreference } from './version-preference.js';
