import {
  type CapabilityRates,
  type ConflictView,
  type DailyConflictReport,
  type DeclarationChange,
  type DeclarationHistoryEntry,
  GOVERNANCE_THRESHOLDS,
  type GovernanceFlag,
  type GovernanceReport,
  type RateTrend,
  type ReportedConflict,
  type RouteCounts,
  type RouteRates,
  type RouteStretch,
  type UnverifiedVersion,
} from '@agent-reach/sdk/protocol';
import { conflictViewKey } from '../routing/conflict-report.js';
import { type HistoryBucket, HOUR_MS } from './route-history.js';

/** Windows up to this long get hourly series; longer ones daily. */
const HOURLY_SERIES_UP_TO_MS = 48 * HOUR_MS;

/** Everything a report is made of, already read. */
export interface ReportInputs {
  /** The window as asked (`7d`) and in milliseconds (whole hours). */
  window: string;
  windowMs: number;
  /** Wall-clock now. */
  nowMs: number;
  retentionMs: number;
  buckets: readonly HistoryBucket[];
  /** Daily conflict reports of the UTC days the window touches. */
  conflictReports: readonly DailyConflictReport[];
  /** The conflicts right now. */
  liveConflicts: readonly ConflictView[];
  /** Every agent's kept declaration history, each agent's oldest version first. */
  history: readonly DeclarationHistoryEntry[];
  /** Live instances per `<agent>/<version>`. */
  liveVersions: ReadonlyMap<string, number>;
  /** `control_plane.declarations.verify_after_calls`. */
  verifyAfterCalls: number;
}

/** The window's hour-aligned bounds: it ends with the current hour. */
export function windowBounds(nowMs: number, windowMs: number): { fromMs: number; toMs: number } {
  const toMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS;
  return { fromMs: toMs - windowMs, toMs };
}

/** The UTC days (`yyyy-mm-dd`) that [fromMs, toMs) touches, oldest first. */
export function daysOf(fromMs: number, toMs: number): string[] {
  const days: string[] = [];
  for (let day = Math.floor(fromMs / (24 * HOUR_MS)) * 24 * HOUR_MS; day < toMs; day += 24 * HOUR_MS)
    days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
const iso = (ms: number) => new Date(ms).toISOString();
const empty = (): RouteCounts => ({ routes: 0, calls: 0, hits: 0, fallbacks: 0, failures: 0 });

function add(into: RouteCounts, from: RouteCounts): void {
  into.routes += from.routes;
  into.calls += from.calls;
  into.hits += from.hits;
  into.fallbacks += from.fallbacks;
  into.failures += from.failures;
}

function ratesOf(counts: RouteCounts): RouteRates {
  const share = (part: number) => (counts.calls === 0 ? null : round(part / counts.calls));
  return { ...counts, hit_rate: share(counts.hits), fallback_rate: share(counts.fallbacks) };
}

function stretch(buckets: readonly HistoryBucket[], fromMs: number, toMs: number): RouteStretch {
  const counts = empty();
  for (const bucket of buckets)
    if (bucket.hourStartMs >= fromMs && bucket.hourStartMs < toMs) add(counts, bucket);
  return { from: iso(fromMs), to: iso(toMs), ...ratesOf(counts) };
}

const change = (later: number | null, earlier: number | null) =>
  later === null || earlier === null ? null : round(later - earlier);

/** The later half of the window (its last ⌊hours/2⌋ hours) against the earlier half; null under 2 h. */
function trendOf(buckets: readonly HistoryBucket[], fromMs: number, toMs: number): RateTrend | null {
  const hours = (toMs - fromMs) / HOUR_MS;
  if (hours < 2) return null;
  const middle = toMs - Math.floor(hours / 2) * HOUR_MS;
  const earlier = stretch(buckets, fromMs, middle);
  const later = stretch(buckets, middle, toMs);
  return {
    earlier,
    later,
    hit_rate_change: change(later.hit_rate, earlier.hit_rate),
    fallback_rate_change: change(later.fallback_rate, earlier.fallback_rate),
  };
}

/** Stretches of an hour (windows up to 48 h) or a day, counted back from the window's end. */
function seriesOf(buckets: readonly HistoryBucket[], fromMs: number, toMs: number): RouteStretch[] {
  const step = toMs - fromMs <= HOURLY_SERIES_UP_TO_MS ? HOUR_MS : 24 * HOUR_MS;
  const series: RouteStretch[] = [];
  for (let end = toMs; end > fromMs; end -= step)
    series.push(stretch(buckets, Math.max(fromMs, end - step), end));
  return series.reverse();
}

function flagsOf(rates: RouteRates): GovernanceFlag[] {
  if (rates.calls < GOVERNANCE_THRESHOLDS.min_calls) return [];
  const flags: GovernanceFlag[] = [];
  if (rates.hit_rate !== null && rates.hit_rate < GOVERNANCE_THRESHOLDS.hit_rate_min)
    flags.push('hit_rate_low');
  if (rates.fallback_rate !== null && rates.fallback_rate > GOVERNANCE_THRESHOLDS.fallback_rate_max)
    flags.push('fallback_rate_high');
  return flags;
}

/** Every conflict of the window's daily reports and of now, once each, oldest first. */
function conflictsOf(
  reports: readonly DailyConflictReport[],
  live: readonly ConflictView[],
): ReportedConflict[] {
  const merged = new Map<string, ReportedConflict>();
  const note = (view: ConflictView, day: string | null) => {
    const key = conflictViewKey(view);
    let entry = merged.get(key);
    if (!entry) {
      entry = { ...view, days: [], live: false };
      merged.set(key, entry);
    } else if (view.since < entry.since) {
      entry.since = view.since;
    }
    if (day === null) {
      // The live view is the freshest: its instances and overlap are now's.
      Object.assign(entry, { ...view, since: entry.since, live: true });
    } else if (!entry.days.includes(day)) {
      entry.days.push(day);
    }
  };
  for (const report of [...reports].sort((a, b) => a.date.localeCompare(b.date)))
    for (const view of report.conflicts) note(view, report.date);
  for (const view of live) note(view, null);
  return [...merged.entries()]
    .sort(([ka, a], [kb, b]) => a.since.localeCompare(b.since) || ka.localeCompare(kb))
    .map(([, entry]) => entry);
}

/** The versions recorded in [fromMs, toMs), oldest first, each with its agent's version before it. */
function changesOf(
  history: readonly DeclarationHistoryEntry[],
  fromMs: number,
  toMs: number,
): DeclarationChange[] {
  const last = new Map<string, string>();
  const changes: DeclarationChange[] = [];
  for (const entry of history) {
    const at = Date.parse(entry.recorded_at);
    if (at >= fromMs && at < toMs) {
      changes.push({
        agent_name: entry.agent_name,
        version: entry.version,
        previous_version: last.get(entry.agent_name) ?? null,
        change_reason: entry.change_reason,
        recorded_at: entry.recorded_at,
        changed_by: entry.changed_by,
        verified: entry.verified,
      });
    }
    last.set(entry.agent_name, entry.version);
  }
  return changes.sort(
    (a, b) => a.recorded_at.localeCompare(b.recorded_at) || a.agent_name.localeCompare(b.agent_name),
  );
}

/** Every version not verified now: live ones first, then newest first. */
function unverifiedOf(
  history: readonly DeclarationHistoryEntry[],
  liveVersions: ReadonlyMap<string, number>,
): UnverifiedVersion[] {
  const newest = new Map<string, string>();
  for (const entry of history) newest.set(entry.agent_name, entry.version);
  return history
    .filter((entry) => !entry.verified)
    .map((entry) => ({
      agent_name: entry.agent_name,
      version: entry.version,
      recorded_at: entry.recorded_at,
      change_reason: entry.change_reason,
      successful_calls: entry.successful_calls,
      live_instances: liveVersions.get(`${entry.agent_name}/${entry.version}`) ?? 0,
      newest: newest.get(entry.agent_name) === entry.version,
    }))
    .sort(
      (a, b) =>
        Number(b.live_instances > 0) - Number(a.live_instances > 0) ||
        b.recorded_at.localeCompare(a.recorded_at) ||
        a.agent_name.localeCompare(b.agent_name),
    );
}

/** Builds the governance report from what was read (pure: the same inputs give the same report). */
export function buildGovernanceReport(inputs: ReportInputs): GovernanceReport {
  const { fromMs, toMs } = windowBounds(inputs.nowMs, inputs.windowMs);
  const buckets = inputs.buckets.filter((b) => b.hourStartMs >= fromMs && b.hourStartMs < toMs);
  const byCapability = new Map<string, HistoryBucket[]>();
  const totals = empty();
  for (const bucket of buckets) {
    add(totals, bucket);
    const list = byCapability.get(bucket.capability);
    if (list) list.push(bucket);
    else byCapability.set(bucket.capability, [bucket]);
  }
  const capabilities: CapabilityRates[] = [...byCapability].map(([capability, own]) => {
    const counts = empty();
    for (const bucket of own) add(counts, bucket);
    const rates = ratesOf(counts);
    return {
      capability,
      ...rates,
      flags: flagsOf(rates),
      trend: trendOf(own, fromMs, toMs),
      series: seriesOf(own, fromMs, toMs),
    };
  });
  capabilities.sort(
    (a, b) => b.calls - a.calls || b.routes - a.routes || a.capability.localeCompare(b.capability),
  );
  return {
    window: inputs.window,
    from: iso(fromMs),
    to: iso(toMs),
    generated_at: iso(inputs.nowMs),
    retention_ms: inputs.retentionMs,
    thresholds: { ...GOVERNANCE_THRESHOLDS },
    totals: ratesOf(totals),
    capabilities,
    conflicts: conflictsOf(inputs.conflictReports, inputs.liveConflicts),
    declaration_changes: changesOf(inputs.history, fromMs, toMs),
    verify_after_calls: inputs.verifyAfterCalls,
    unverified_versions: unverifiedOf(inputs.history, inputs.liveVersions),
  };
}
