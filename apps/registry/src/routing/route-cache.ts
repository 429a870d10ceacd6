import type { Clock } from '@agent-reach/sdk/clock';

/** The canonical key of a query is the SDK's (ReachClient's route cache uses the same one). */
export { routeQueryKey as routeCacheKey } from '@agent-reach/sdk/protocol';

interface Entry<V> {
  value: V;
  storedAt: number;
  /** The invalidation epoch the entry was last known valid at. */
  epoch: number;
  instances: readonly string[];
}

/**
 * Route answers kept for up to `ttlMs` (seed article 6.1: 30 s), dropped at once by `invalidateAll`
 * (membership or a declaration changed) or `invalidateInstance` (one instance got worse).
 * Instance invalidation is lazy: it stamps the instance, and `get` checks an entry's instances only
 * when some stamp is newer than the entry, so a miss costs one Map insert and no index upkeep.
 */
export class RouteCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  // Instance id -> epoch of its last invalidation; cleared with the entries.
  private readonly stamps = new Map<string, number>();
  private epoch = 0;

  constructor(private readonly options: { ttlMs: number; clock: Pick<Clock, 'now'>; maxEntries?: number }) {}

  /** The cached value and its age, or undefined when absent, expired or invalidated. */
  get(key: string): { value: V; ageMs: number } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const ageMs = this.options.clock.now() - entry.storedAt;
    if (ageMs >= this.options.ttlMs || (entry.epoch < this.epoch && this.invalidated(entry))) {
      this.entries.delete(key);
      return undefined;
    }
    return { value: entry.value, ageMs };
  }

  /** Stores a value computed from `instances` (so an instance-level invalidation finds it). */
  set(key: string, value: V, instances: readonly string[]): void {
    if (this.options.ttlMs <= 0) return;
    this.entries.delete(key);
    const max = this.options.maxEntries ?? 10_000;
    // Map order is insertion order: the first key is the oldest entry.
    if (this.entries.size >= max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, storedAt: this.options.clock.now(), epoch: this.epoch, instances });
  }

  invalidateAll(): void {
    this.entries.clear();
    this.stamps.clear();
  }

  /** Drops every answer that included the instance (lazily, on its next `get`). */
  invalidateInstance(instanceId: string): void {
    // No entry can hold it, and old stamps go with the last entry.
    if (this.entries.size === 0) {
      this.stamps.clear();
      return;
    }
    this.epoch += 1;
    this.stamps.set(instanceId, this.epoch);
  }

  get size(): number {
    return this.entries.size;
  }

  // True when one of the entry's instances was invalidated after it was stored; else re-stamps it.
  private invalidated(entry: Entry<V>): boolean {
    for (const id of entry.instances) {
      const stamp = this.stamps.get(id);
      if (stamp !== undefined && stamp > entry.epoch) return true;
    }
    entry.epoch = this.epoch;
    return false;
  }
}
