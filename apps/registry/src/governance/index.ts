/** Governance (seed article 6.3): the durable route history and the governance report. */

export { buildGovernanceReport, daysOf, type ReportInputs, windowBounds } from './governance-report.js';
export { createGovernanceRoutes } from './governance-routes.js';
export { ReportReader, type ReportReaderDeps } from './report-reader.js';
export {
  type HistoryBucket,
  HOUR_MS,
  OVERFLOW,
  parseHistoryKey,
  RouteHistory,
  type RouteHistoryDeps,
  UNATTRIBUTED,
} from './route-history.js';
