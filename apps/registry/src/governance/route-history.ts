import type { Clock } from '@agent-reach/sdk/clock';
import { CapabilityId, RouteCounts } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import type { CallClass } from '../routing/routing-metrics.js';
import { KEYS } from '../store/keys.js';
import { deleteInCommits, MAX_OPS_PER_COMMIT, type PutOp, type RegistryStore } from '../store/store.js';

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Calls and routes that named no capability this registry can attribute them to. */
export const UNATTRIBUTED = '(none)';
/** Capabilities past the per-hour limit (names sent by callers are not trusted to stay few). */
export const OVERFLOW = '(other)';

/** One stored bucket: a writer's counts for one capability in one hour. */
export interface HistoryBucket extends RouteCounts {
  hourStartMs: number;
  capability: string;
  writer: string;
}

interface LiveCounts extends RouteCounts {
  /** Changed since the last flush. */
  dirty: boolean;
}

const zero = (): LiveCounts => ({ routes: 0, calls: 0, hits: 0, fallbacks: 0, failures: 0, dirty: true });

const countsOf = ({ routes, calls, hits, fallbacks, failures }: RouteCounts): RouteCounts => ({
  routes,
  calls,
  hits,
  fallbacks,
  failures,
});

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Parses a route-history key; undefined for anything else. */
export function parseHistoryKey(
  key: string,
): { hourStartMs: number; capability: string; writer: string } | undefined {
  if (!key.startsWith(KEYS.routeHistoryPrefix)) return undefined;
  const [day, hour, capability, writer, ...rest] = key.slice(KEYS.routeHistoryPrefix.length).split('/');
  if (rest.length > 0 || !day || !hour || !capability || !writer) return undefined;
  const hourStartMs = Date.parse(`${day}T${hour}:00:00.000Z`);
  return Number.isFinite(hourStartMs) ? { hourStartMs, capability, writer } : undefined;
}

/** What the history is built from. */
export interface RouteHistoryDeps {
  store: Pick<RegistryStore, 'commit' | 'list'>;
  /** Wall-clock hours name the buckets (a report is about calendar time). */
  clock: Pick<Clock, 'wallNow' | 'every'>;
  /** This process's name in the bucket keys: unique per replica process, so no two write one key. */
  writer: string;
  logger?: Logger;
  /** Most capabilities counted per hour; more go to `(other)`. @default 512 */
  maxCapabilities?: number;
}

/**
 * The durable, hourly route history behind the governance report: per capability, routes answered
 * and calls ended (hits, fallbacks, failures). Counting is an increment in memory; a flush writes the
 * totals of this process's changed buckets under its own keys (so replicas never write one key and a
 * retried flush is idempotent), and the report sums every writer's keys.
 */
export class RouteHistory {
  /** Totals of this process per hour start and capability; past hours leave once flushed. */
  private readonly hours = new Map<number, Map<string, LiveCounts>>();
  private currentStart = Number.NEGATIVE_INFINITY;
  private current = new Map<string, LiveCounts>();
  private flushing: Promise<boolean> | undefined;

  constructor(private readonly deps: RouteHistoryDeps) {}

  get writer(): string {
    return this.deps.writer;
  }

  /** Counts one answered route query for `capability`. */
  routed(capability: string): void {
    this.counts(capability).routes += 1;
  }

  /** Counts one ended call of `capability`. */
  callEnded(capability: string, call: CallClass): void {
    const counts = this.counts(capability);
    counts.calls += 1;
    if (call.hit) counts.hits += 1;
    if (call.fallback) counts.fallbacks += 1;
    if (call.failed) counts.failures += 1;
  }

  /**
   * Writes the totals of every bucket changed since the last flush (one commit per 128 keys); past
   * hours that are written leave memory. Resolves false when a commit failed (its buckets stay
   * changed, for the next flush). Concurrent calls share one flush.
   */
  flush(): Promise<boolean> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /**
   * Every bucket whose hour starts in [fromMs, toMs), from the store, with this process's own buckets
   * taken from memory (fresher than its last flush).
   */
  async read(fromMs: number, toMs: number): Promise<HistoryBucket[]> {
    const byKey = new Map<string, HistoryBucket>();
    for (let day = Math.floor(fromMs / DAY_MS) * DAY_MS; day < toMs; day += DAY_MS) {
      for (const { key, value } of await this.deps.store.list(KEYS.routeHistoryDay(dayOf(day)))) {
        const where = parseHistoryKey(key);
        if (!where || where.hourStartMs < fromMs || where.hourStartMs >= toMs) continue;
        const counts = parseCounts(value);
        if (!counts) {
          this.deps.logger?.warn({ key }, 'ignoring an unreadable route history bucket');
          continue;
        }
        byKey.set(key, { ...where, ...counts });
      }
    }
    for (const [hourStartMs, buckets] of this.hours) {
      if (hourStartMs < fromMs || hourStartMs >= toMs) continue;
      for (const [capability, counts] of buckets) {
        const key = KEYS.routeHistory(hourStartMs, capability, this.deps.writer);
        byKey.set(key, { hourStartMs, capability, writer: this.deps.writer, ...countsOf(counts) });
      }
    }
    return [...byKey.values()];
  }

  /** Deletes every bucket of a UTC day that ended more than `retentionMs` ago; returns how many went. */
  async collect(retentionMs: number): Promise<number> {
    const keepFrom = dayOf(this.deps.clock.wallNow() - retentionMs);
    const old = (await this.deps.store.list(KEYS.routeHistoryPrefix))
      .map(({ key }) => key)
      .filter(
        (key) => key.slice(KEYS.routeHistoryPrefix.length, KEYS.routeHistoryPrefix.length + 10) < keepFrom,
      );
    await deleteInCommits(this.deps.store, old);
    return old.length;
  }

  /**
   * Flushes every `flushMs`, and (while `isLeader()`) collects buckets past `retentionMs` at once and
   * every hour. Returns a stop function that flushes one last time.
   */
  start(options: {
    flushMs: number;
    retentionMs: number;
    isLeader: () => boolean;
    onError?: (error: unknown) => void;
  }): () => Promise<void> {
    const onError = options.onError ?? (() => {});
    const collect = () => {
      if (options.isLeader()) this.collect(options.retentionMs).catch(onError);
    };
    const stopFlush = this.deps.clock.every(options.flushMs, () => {
      this.flush().catch(onError);
    });
    const stopCollect = this.deps.clock.every(HOUR_MS, collect);
    collect();
    return async () => {
      stopFlush();
      stopCollect();
      await this.flush().catch(onError);
    };
  }

  private counts(capability: string): LiveCounts {
    const now = this.deps.clock.wallNow();
    // A wall clock stepped back keeps counting into the current hour: a bucket's total never shrinks.
    if (now >= this.currentStart + HOUR_MS) this.rotate(now);
    let counts = this.current.get(capability);
    if (!counts) {
      const max = this.deps.maxCapabilities ?? 512;
      const name = this.current.size >= max && capability !== UNATTRIBUTED ? OVERFLOW : capability;
      counts = this.current.get(name) ?? zero();
      this.current.set(name, counts);
    }
    counts.dirty = true;
    return counts;
  }

  private rotate(now: number): void {
    this.currentStart = Math.floor(now / HOUR_MS) * HOUR_MS;
    let current = this.hours.get(this.currentStart);
    if (!current) {
      current = new Map();
      this.hours.set(this.currentStart, current);
    }
    this.current = current;
  }

  private async write(): Promise<boolean> {
    const changed: Array<{ counts: LiveCounts; put: PutOp }> = [];
    for (const [hourStartMs, buckets] of this.hours) {
      for (const [capability, counts] of buckets) {
        if (!counts.dirty) continue;
        counts.dirty = false;
        const key = KEYS.routeHistory(hourStartMs, capability, this.deps.writer);
        changed.push({ counts, put: { key, value: JSON.stringify(countsOf(counts)) } });
      }
    }
    let ok = true;
    for (let i = 0; i < changed.length; i += MAX_OPS_PER_COMMIT) {
      const chunk = changed.slice(i, i + MAX_OPS_PER_COMMIT);
      try {
        const result = await this.deps.store.commit({ puts: chunk.map((c) => c.put) });
        if (!result.ok) throw new Error(result.error);
      } catch (error) {
        ok = false;
        for (const { counts } of chunk) counts.dirty = true;
        this.deps.logger?.warn({ err: error, buckets: chunk.length }, 'route history flush failed; retrying');
      }
    }
    // Past hours whose every bucket is written are the store's now.
    for (const [hourStartMs, buckets] of this.hours) {
      if (hourStartMs === this.currentStart) continue;
      if ([...buckets.values()].every((counts) => !counts.dirty)) this.hours.delete(hourStartMs);
    }
    return ok;
  }
}

function parseCounts(value: string): RouteCounts | undefined {
  try {
    const parsed = RouteCounts.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The capability an outcome's `operation` names, when it is a capability id; else `(none)`. */
export function capabilityOf(operation: string | undefined): string | undefined {
  return operation !== undefined && CapabilityId.safeParse(operation).success ? operation : undefined;
}
