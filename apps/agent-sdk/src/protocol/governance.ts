import { z } from 'zod';
import { ConflictView } from './route.js';

const HOUR_MS = 3_600_000;
const WINDOW_UNIT_MS: Record<string, number> = { h: HOUR_MS, d: 24 * HOUR_MS };

/**
 * A governance report's window, `<n>h` or `<n>d` (`1h`, `24h`, `7d`, `30d`), in milliseconds; null
 * for anything else. Whole hours only: the route history is kept in hourly buckets.
 */
export function parseReportWindow(text: string): number | null {
  const match = /^([1-9][0-9]{0,3})([hd])$/.exec(text);
  return match ? Number(match[1]) * WINDOW_UNIT_MS[match[2]!]! : null;
}

/** The seed article's thresholds (section 6.3), the same the alerting rules use. */
export const GOVERNANCE_THRESHOLDS = {
  /** A capability whose calls hit the first candidate less often than this is flagged. */
  hit_rate_min: 0.7,
  /** A capability whose calls needed a fallback more often than this is flagged. */
  fallback_rate_max: 0.1,
  /** Fewer calls than this in the window never flag a capability (a handful of calls says nothing). */
  min_calls: 20,
} as const;

/** Route and call counts of one capability (or all) over some hours. */
export const RouteCounts = z.object({
  /** Route queries answered for the capability. */
  routes: z.number().int().min(0),
  /** Calls that ended (one per call: the outcome the caller marked final). */
  calls: z.number().int().min(0),
  /** Calls the first candidate served (a route hit). */
  hits: z.number().int().min(0),
  /** Calls that needed a retry or a fallback candidate. */
  fallbacks: z.number().int().min(0),
  /** Calls that ended without a result. */
  failures: z.number().int().min(0),
});
export type RouteCounts = z.infer<typeof RouteCounts>;

/** Counts with their rates: `hits / calls` and `fallbacks / calls`, null without calls (4 decimals). */
export const RouteRates = RouteCounts.extend({
  hit_rate: z.number().nullable(),
  fallback_rate: z.number().nullable(),
});
export type RouteRates = z.infer<typeof RouteRates>;

/** Figures over one stretch of the window. */
export const RouteStretch = RouteRates.extend({ from: z.string(), to: z.string() });
export type RouteStretch = z.infer<typeof RouteStretch>;

/**
 * How the rates moved: the later half of the window against the earlier half (`change` is later minus
 * earlier, null when either half had no calls). Null for a one-hour window.
 */
export const RateTrend = z.object({
  earlier: RouteStretch,
  later: RouteStretch,
  hit_rate_change: z.number().nullable(),
  fallback_rate_change: z.number().nullable(),
});
export type RateTrend = z.infer<typeof RateTrend>;

/** A threshold a capability crossed over the window. */
export const GovernanceFlag = z.enum(['hit_rate_low', 'fallback_rate_high']);
export type GovernanceFlag = z.infer<typeof GovernanceFlag>;

/** One capability's hit and fallback rates over the window, their trend and their series. */
export const CapabilityRates = RouteRates.extend({
  /** The capability id (`(none)`: outcomes that named no operation of a multi-operation agent). */
  capability: z.string(),
  flags: z.array(GovernanceFlag),
  trend: RateTrend.nullable(),
  /** Hourly stretches for windows up to 48 h, daily ones beyond (the oldest may be shorter). */
  series: z.array(RouteStretch),
});
export type CapabilityRates = z.infer<typeof CapabilityRates>;

/** A conflict seen during the window: in a daily conflict report of a day the window touches, or live now. */
export const ReportedConflict = ConflictView.extend({
  /** The UTC days whose daily report lists it. */
  days: z.array(z.string()),
  /** Whether it is a conflict right now. */
  live: z.boolean(),
});
export type ReportedConflict = z.infer<typeof ReportedConflict>;

/** A declaration version recorded during the window, with its reason. */
export const DeclarationChange = z.object({
  agent_name: z.string(),
  version: z.string(),
  /** The version recorded before it; null for an agent's first declaration. */
  previous_version: z.string().nullable(),
  change_reason: z.string().nullable(),
  recorded_at: z.string(),
  changed_by: z.string().nullable(),
  /** Whether the version is verified now (by its successful calls or an operator). */
  verified: z.boolean(),
});
export type DeclarationChange = z.infer<typeof DeclarationChange>;

/** A declaration version that has not earned trust yet (routing prefers verified versions). */
export const UnverifiedVersion = z.object({
  agent_name: z.string(),
  version: z.string(),
  recorded_at: z.string(),
  change_reason: z.string().nullable(),
  /** Successful calls counted toward verification so far (every replica's). */
  successful_calls: z.number().int().min(0),
  /** Live instances registered with this version now. */
  live_instances: z.number().int().min(0),
  /** Whether it is its agent's newest recorded version. */
  newest: z.boolean(),
});
export type UnverifiedVersion = z.infer<typeof UnverifiedVersion>;

/** `GET /v1/reports/governance`: the weekly governance report of seed article 6.3. */
export const GovernanceReport = z.object({
  /** The window as asked (`7d`). */
  window: z.string(),
  /** Hour-aligned bounds: `to` is the end of the current hour, `from` one window before. */
  from: z.string(),
  to: z.string(),
  generated_at: z.string(),
  /** How long the route history is kept (the longest window). */
  retention_ms: z.number().int(),
  thresholds: z.object({ hit_rate_min: z.number(), fallback_rate_max: z.number(), min_calls: z.number() }),
  totals: RouteRates,
  /** Busiest first (calls, then routes, then name). */
  capabilities: z.array(CapabilityRates),
  conflicts: z.array(ReportedConflict),
  declaration_changes: z.array(DeclarationChange),
  /** Successful calls that verify a version (`control_plane.declarations.verify_after_calls`; 0: operators only). */
  verify_after_calls: z.number().int().min(0),
  /** Every kept version not verified now, whenever it was recorded: live ones first, then newest first. */
  unverified_versions: z.array(UnverifiedVersion),
});
export type GovernanceReport = z.infer<typeof GovernanceReport>;
