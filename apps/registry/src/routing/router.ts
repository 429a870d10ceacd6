import type { Clock } from '@agent-reach/sdk/clock';
import type {
  InstanceState,
  Outcome,
  OutcomeBatch,
  RouteCandidate,
  RouteQuery,
  RouteResponse,
  RoutingStats,
  ScoreBreakdown,
} from '@agent-reach/sdk/protocol';
import { drawRouteOrder } from '@agent-reach/sdk/protocol';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { Registry } from 'prom-client';
import { capabilityOf, type RouteHistory, UNATTRIBUTED } from '../governance/route-history.js';
import type { InstanceSource } from '../instances/instance-source.js';
import type { InstanceRecord } from '../store/records.js';
import { withSpanSync } from '../telemetry/index.js';
import type { TierInputs } from '../weights/compute-weight.js';
import { CandidatePool } from './candidate-pool.js';
import { ConflictBook } from './conflicts.js';
import { OperationIndex } from './operation-index.js';
import { OutcomeBook } from './outcome-window.js';
import { RouteCache, routeCacheKey } from './route-cache.js';
import { type RoutingLiveness, unknownLiveness } from './routing-liveness.js';
import { callClassOf, endsCall, RoutingMetrics } from './routing-metrics.js';
import { healthFactor, loadFactor, matchQuality, priorityFactor, scoreOf, warmupFactor } from './score.js';
import { type DeclarationVersions, VersionPreference } from './version-preference.js';

/** What the router is built from; everything but the source and clock has a default. */
export interface RouterDeps {
  source: InstanceSource;
  clock: Clock;
  liveness?: RoutingLiveness;
  /** `control_plane.warmup`. @default 300000 */
  warmupMs?: number;
  /** `control_plane.route_cache_ttl`. @default 30000 */
  cacheTtlMs?: number;
  /** The registry's Prometheus registry; without one, metrics are kept for the stats API only. */
  metricsRegistry?: Registry;
  book?: OutcomeBook;
  /** Most share of an instance's outcome evidence one named caller may hold (when no `book` is given). */
  callerShare?: number;
  conflicts?: ConflictBook;
  /**
   * How long a removed instance's outcome windows and first-seen time are kept, so an agent that
   * re-registers under its previous id (lease ran out) carries its history over. @default 900000
   */
  keepHistoryMs?: number;
  /** Uniform [0, 1) numbers for the weighted draw of the order. @default Math.random */
  random?: () => number;
  /**
   * Declaration versions: routing prefers each agent's newest verified live version and counts
   * successful calls toward verification. Without it every version weighs the same.
   */
  versions?: DeclarationVersions;
  /** The durable per-capability route history (the governance report's figures). */
  history?: Pick<RouteHistory, 'routed' | 'callEnded'>;
  /** Opens a `reach.route` span per query when set (OTLP export configured); none: no span work at all. */
  tracer?: Tracer;
}

/** What a `reach.route` span says about its query. */
function routeAttributes(query: RouteQuery): Attributes {
  return {
    'reach.operation': query.operation,
    ...(query.domain === undefined ? {} : { 'reach.domain': query.domain }),
    'reach.max_candidates': query.max_candidates,
  };
}

interface Answer {
  /** Qualifying candidates after conflict filtering, best score first. */
  ranked: RouteCandidate[];
  conflict: RouteResponse['conflict'];
  conflictJson?: string;
}

/** Liveness states that can be routed to. */
const ROUTABLE: ReadonlySet<InstanceState> = new Set(['healthy', 'suspect']);

/**
 * The routing verbs: `route` (filter, score, resolve conflicts, order) and `recordOutcomes`.
 * Answers are cached per canonical query for `cacheTtlMs`; a registration change clears the cache, and
 * an instance's entries go when it fails or changes state. Successes do not invalidate: a success
 * rate that drifts up within the TTL is acceptable.
 */
export class Router {
  readonly book: OutcomeBook;
  readonly conflicts: ConflictBook;
  readonly metrics: RoutingMetrics;
  private readonly index: OperationIndex;
  private readonly pool = new CandidatePool();
  private readonly cache: RouteCache<Answer>;
  private readonly liveness: RoutingLiveness;
  private readonly preference: VersionPreference | undefined;
  // Removed instances whose history is kept a while, with when they went (monotonic ms).
  private readonly removedAt = new Map<string, number>();
  private readonly stops: Array<() => void> = [];

  constructor(private readonly deps: RouterDeps) {
    this.book =
      deps.book ?? new OutcomeBook(deps.callerShare === undefined ? {} : { callerShare: deps.callerShare });
    this.conflicts = deps.conflicts ?? new ConflictBook(deps.source, deps.clock);
    this.metrics = new RoutingMetrics(deps.metricsRegistry, () =>
      deps.source.all().map((record) => ({
        instanceId: record.instance_id,
        agentName: record.agent_name,
        successRate: this.book.successRate(record.instance_id),
      })),
    );
    this.liveness = deps.liveness ?? unknownLiveness;
    this.index = new OperationIndex(deps.source);
    this.cache = new RouteCache({ ttlMs: deps.cacheTtlMs ?? 30_000, clock: deps.clock });
    this.preference =
      deps.versions && new VersionPreference(deps.source, deps.versions, () => this.cache.invalidateAll());
    this.stops.push(
      deps.source.subscribe((changes) => {
        this.cache.invalidateAll();
        // First sight as the watch delivers it, so a wall-clock step later cannot age the instance.
        for (const record of changes.put) {
          this.removedAt.delete(record.instance_id);
          this.registrationTime(record, undefined);
        }
        const now = deps.clock.now();
        for (const id of changes.deleted) {
          // Gone instances leave the metrics at once; their routing history stays a while.
          this.metrics.forgetInstance(id);
          this.removedAt.set(id, now);
        }
        this.forgetRemoved(now);
      }),
    );
  }

  /** Answers a route query: up to `max_candidates`, healthy first, each in a score-weighted random order. */
  route(query: RouteQuery): RouteResponse {
    const tracer = this.deps.tracer;
    if (tracer === undefined) return this.routeNow(query);
    return withSpanSync(tracer, 'reach.route', { attributes: routeAttributes(query) }, (span) =>
      this.routeNow(query, span),
    );
  }

  /**
   * `JSON.stringify(route(query))`, byte for byte and with the same draw of the order, but each
   * candidate is serialised once and reused, so a cache hit costs lookups and a join.
   */
  routeJson(query: RouteQuery): string {
    const tracer = this.deps.tracer;
    if (tracer === undefined) return this.routeJsonNow(query);
    return withSpanSync(tracer, 'reach.route', { attributes: routeAttributes(query) }, (span) =>
      this.routeJsonNow(query, span),
    );
  }

  private routeNow(query: RouteQuery, span?: Span): RouteResponse {
    const { answer, cached } = this.answer(query);
    const order = this.order(answer.ranked, query.max_candidates);
    span?.setAttributes({ 'reach.candidates': order.length, 'reach.cached': cached });
    return {
      candidates: order.map((i) => answer.ranked[i]!),
      conflict: answer.conflict,
      cached,
    };
  }

  private routeJsonNow(query: RouteQuery, span?: Span): string {
    const { answer, cached } = this.answer(query);
    answer.conflictJson ??= JSON.stringify(answer.conflict);
    let candidates = '';
    const order = this.order(answer.ranked, query.max_candidates);
    for (const i of order) {
      const text = this.pool.json(answer.ranked[i]!);
      candidates = candidates.length === 0 ? text : `${candidates},${text}`;
    }
    span?.setAttributes({ 'reach.candidates': order.length, 'reach.cached': cached });
    return `{"candidates":[${candidates}],"conflict":${answer.conflictJson},"cached":${cached}}`;
  }

  /**
   * Counts a batch of outcomes into `caller`'s windows (a token name; null on the open default) and the
   * metrics; a failing instance's cached answers go.
   */
  recordOutcomes(batch: OutcomeBatch, caller: string | null = null): { accepted: number; ignored: number } {
    const summary = this.book.record(batch.outcomes, (id) => this.deps.source.get(id) !== undefined, caller);
    this.metrics.outcomesRecorded(summary.fresh, (id) => this.deps.source.get(id)?.agent_name);
    const versions = this.deps.versions;
    if (versions) {
      for (const outcome of summary.fresh) {
        if (!outcome.ok) continue;
        const record = this.deps.source.get(outcome.instance_id);
        if (record) versions.countSuccess(record.agent_name, record.declaration.version);
      }
    }
    const { history } = this.deps;
    if (history) {
      for (const outcome of summary.fresh)
        if (endsCall(outcome)) history.callEnded(this.capabilityOfCall(outcome), callClassOf(outcome));
    }
    for (const id of summary.failed) this.cache.invalidateInstance(id);
    return { accepted: summary.accepted, ignored: summary.ignored };
  }

  // The operation the caller named, else the instance's only one (older callers send none).
  private capabilityOfCall(outcome: Outcome): string {
    const named = capabilityOf(outcome.operation);
    if (named !== undefined) return named;
    const operations = Object.keys(this.deps.source.get(outcome.instance_id)?.declaration.capabilities ?? {});
    return operations.length === 1 ? operations[0]! : UNATTRIBUTED;
  }

  /** The seed's three indicators plus every live instance's window figures. */
  stats(): RoutingStats {
    const instances = this.deps.source
      .all()
      .map((record) => {
        const window = this.book.window(record.instance_id);
        return {
          instance_id: record.instance_id,
          agent_name: record.agent_name,
          state: this.stateOf(record.instance_id),
          window: window?.count ?? 0,
          failures: window?.failures ?? 0,
          success_rate: this.book.successRate(record.instance_id),
          latency_ms: window?.latencyStats() ?? null,
        };
      })
      .sort((a, b) => a.instance_id.localeCompare(b.instance_id));
    return { ...this.metrics.snapshot(), instances };
  }

  /**
   * Everything but the match quality for one instance (shared with DNS weight publication);
   * undefined when the instance is not routable. `live`: its liveness when the caller holds it
   * (a weight pass walking the liveness entries), else looked up.
   */
  factorsOf(
    record: InstanceRecord,
    now = this.deps.clock.now(),
    live = this.liveness.snapshot(record.instance_id, now),
  ): (Omit<ScoreBreakdown, 'match'> & { state: InstanceState }) | undefined {
    const state = live?.state ?? 'healthy';
    if (!ROUTABLE.has(state)) return undefined;
    return {
      state,
      health: healthFactor(state),
      success_rate: this.book.successRate(record.instance_id),
      load: loadFactor(live?.load),
      warmup: warmupFactor(
        now - this.registrationTime(record, live?.registeredAt),
        this.deps.warmupMs ?? 300_000,
      ),
      priority: priorityFactor(record.declaration.priority),
      version: this.preference?.factor(record.agent_name, record.declaration.version) ?? 1,
    };
  }

  /**
   * The part of `factorsOf` an instance's DNS tier depends on (state, success rate, load), or undefined
   * when it is not routable: a weight pass over its budget of weight moves weighs only tiers.
   */
  tierFactorsOf(
    record: InstanceRecord,
    now: number,
    live = this.liveness.snapshot(record.instance_id, now),
  ): TierInputs | undefined {
    const state = live?.state ?? 'healthy';
    if (!ROUTABLE.has(state)) return undefined;
    return { state, success_rate: this.book.successRate(record.instance_id), load: loadFactor(live?.load) };
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.preference?.close();
    this.index.close();
    this.conflicts.close();
  }

  private compute(query: RouteQuery): Answer {
    const now = this.deps.clock.now();
    const excluded = new Set(query.exclude);
    const best = new Map<string, RouteCandidate>();
    for (const offer of this.index.lookup(query.operation)) {
      const { record } = offer;
      if (excluded.has(record.instance_id) || excluded.has(record.agent_name)) continue;
      const match = matchQuality(record.declaration, offer.spec, offer.via, query);
      if (match === null) continue;
      const factors = this.factorsOf(record, now);
      if (!factors) continue;
      const { state, ...rest } = factors;
      const breakdown = { match, ...rest };
      const score = scoreOf(breakdown);
      const previous = best.get(record.instance_id);
      if (previous && previous.score >= score) continue;
      best.set(record.instance_id, this.pool.candidate(offer, state, breakdown, score));
    }
    const ranked = [...best.values()].sort(
      (a, b) => b.score - a.score || a.instance_id.localeCompare(b.instance_id),
    );
    return this.resolveConflicts(ranked);
  }

  // Of each conflicting set, only the agent whose best instance scores highest stays (seed article 5.2).
  private resolveConflicts(ranked: RouteCandidate[]): Answer {
    const winners = new Map<string, string>();
    let conflict: Answer['conflict'] = null;
    const kept = ranked.filter((candidate) => {
      const record = this.deps.source.get(candidate.instance_id);
      if (!record) return true;
      const { domain, priority } = record.declaration;
      const entry = this.conflicts.conflictOf(domain, candidate.operation, priority, candidate.agent_name);
      if (!entry) return true;
      const winner = winners.get(entry.key);
      if (winner === undefined) winners.set(entry.key, candidate.agent_name);
      if (winner === undefined || winner === candidate.agent_name) return true;
      conflict ??= { agents: entry.agents, capability: entry.operation };
      return false;
    });
    return { ranked: kept, conflict };
  }

  // The cached answer for the query, or a fresh one (then cached); counts the query either way.
  private answer(query: RouteQuery): { answer: Answer; cached: boolean } {
    this.deps.history?.routed(query.operation);
    const key = routeCacheKey(query);
    const hit = this.cache.get(key)?.value;
    // A candidate that turned suspect (or recovered) since the answer was cached makes it stale.
    if (hit && !hit.ranked.some((c) => this.stateOf(c.instance_id) !== c.state)) {
      this.metrics.routeAnswered(true);
      return { answer: hit, cached: true };
    }
    const answer = this.compute(query);
    this.cache.set(
      key,
      answer,
      answer.ranked.map((candidate) => candidate.instance_id),
    );
    this.metrics.routeAnswered(false);
    return { answer, cached: false };
  }

  // Healthy before suspect, then a score-weighted draw (the SDK's, which ReachClient's cache uses too).
  private order(ranked: readonly RouteCandidate[], limit: number): number[] {
    return drawRouteOrder(ranked, limit, this.deps.random);
  }

  // The liveness table's registration time (fixed at first sight, so a wall-clock step changes
  // nothing); for an instance it does not track, the record's wall-clock time turned monotonic now.
  private registrationTime(record: InstanceRecord, fromLiveness: number | undefined): number {
    return (
      fromLiveness ?? this.deps.clock.now() - Math.max(0, this.deps.clock.wallNow() - record.registered_at)
    );
  }

  private stateOf(instanceId: string): InstanceState {
    return this.liveness.snapshot(instanceId)?.state ?? 'healthy';
  }

  // Drops the history of instances removed longer ago than `keepHistoryMs` (oldest first).
  private forgetRemoved(now: number): void {
    const keep = this.deps.keepHistoryMs ?? 900_000;
    for (const [id, at] of this.removedAt) {
      if (now - at < keep) break;
      this.removedAt.delete(id);
      this.forget(id);
    }
  }

  private forget(instanceId: string): void {
    this.book.forget(instanceId);
    this.metrics.forgetInstance(instanceId);
  }
}
