import type { RouteQuery } from '@agent-reach/sdk/protocol';
import type { Clock } from '../clock/index.js';

/**
 * The canonical key of a query: everything that changes which instances qualify and how they score.
 * `max_candidates` is left out (answers are truncated per request) and `exclude` is sorted.
 */
export function routeCacheKey(query: RouteQuery): string {
  const c = query.constraints;
  const exclude = query.exclude.length > 1 ? [...query.exclude].sort() : query.exclude;
  return `${query.domain ?? ''}\u0000${query.operation}\u0000${c.input_size ?? ''}\u0000${c.max_latency_sec ?? ''}\u0000${
    c.output_format ?? ''
  }\u0000${exclude.join(',')}`;
}

interface Entry<V> {
  value: V;
  storedAt: number;
  instances: readonly string[];
}

/**
 * Route answers kept for up to `ttlMs` (seed article 6.1: 30 s), dropped at once by `invalidateAll`
 * (membership or a declaration changed) or `invalidateInstance` (one instance got worse).
 */
export class RouteCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly byInstance = new Map<string, Set<string>>();

  constructor(private readonly options: { ttlMs: number; clock: Pick<Clock, 'now'>; maxEntries?: number }) {}

  /** The cached value and its age, or undefined when absent or expired. */
  get(key: string): { value: V; ageMs: number } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const ageMs = this.options.clock.now() - entry.storedAt;
    if (ageMs >= this.options.ttlMs) {
      this.delete(key);
      return undefined;
    }
    return { value: entry.value, ageMs };
  }

  /** Stores a value computed from `instances` (so an instance-level invalidation finds it). */
  set(key: string, value: V, instances: readonly string[]): void {
    if (this.options.ttlMs <= 0) return;
    this.delete(key);
    const max = this.options.maxEntries ?? 10_000;
    // Map order is insertion order: the first key is the oldest entry.
    if (this.entries.size >= max) this.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, storedAt: this.options.clock.now(), instances });
    for (const id of instances) {
      let keys = this.byInstance.get(id);
      if (!keys) {
        keys = new Set();
        this.byInstance.set(id, keys);
      }
      keys.add(key);
    }
  }

  invalidateAll(): void {
    this.entries.clear();
    this.byInstance.clear();
  }

  /** Drops every answer that included the instance. */
  invalidateInstance(instanceId: string): void {
    const keys = this.byInstance.get(instanceId);
    if (!keys) return;
    for (const key of [...keys]) this.delete(key);
    this.byInstance.delete(instanceId);
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const id of entry.instances) {
      const keys = this.byInstance.get(id);
      keys?.delete(key);
      if (keys?.size === 0) this.byInstance.delete(id);
    }
  }
}
