import type { Clock } from '../clock/index.js';
import type { RouteCandidate, RouteQuery, RouteResponse } from '../protocol/route.js';
import { drawRouteOrder, routeQueryKey } from '../protocol/route-order.js';

/** How many candidates a cache fill asks the registry for, so cached calls still spread over replicas. */
export const ROUTE_CACHE_FILL = 20;

interface Entry {
  candidates: readonly RouteCandidate[];
  conflict: RouteResponse['conflict'];
  expiresAt: number;
}

/**
 * ReachClient's own short-lived cache of registry route answers, so a caller making many calls for the
 * same need does not pay a registry round trip per call.
 *
 * - An entry holds the registry's whole ranked list (a fill asks for {@link ROUTE_CACHE_FILL}); every
 *   call served from it draws its own order with the registry's rule ({@link drawRouteOrder}) and keeps
 *   `max_candidates`, so load spreads as it would had the registry been asked.
 * - Entries live `ttlMs` (default 1 s, far below the registry's 30 s: the registry also drops answers
 *   when liveness states change, which a client cannot see), on the monotonic clock.
 * - A failed attempt on an instance drops every entry holding it, so the next call asks the registry
 *   (which hears of the failure from the outcome report) instead of drawing the failed instance again.
 * - Empty answers are not kept: "no candidate" must be asked again.
 */
export class ClientRouteCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  /** The answer for `query` drawn afresh from a live entry, or undefined. */
  get(query: RouteQuery): Pick<RouteResponse, 'candidates' | 'conflict'> | undefined {
    const key = routeQueryKey(query);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.clock.now() >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    const order = drawRouteOrder(entry.candidates, query.max_candidates, this.random);
    return { candidates: order.map((i) => entry.candidates[i]!), conflict: entry.conflict };
  }

  /** Keeps a registry answer (asked with {@link ROUTE_CACHE_FILL} candidates) for `ttlMs`. */
  set(query: RouteQuery, answer: Pick<RouteResponse, 'candidates' | 'conflict'>): void {
    if (answer.candidates.length === 0) return;
    const key = routeQueryKey(query);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      // Oldest first: Map iteration follows insertion order and a refill re-inserts.
      this.entries.delete(this.entries.keys().next().value!);
    }
    const expiresAt = this.clock.now() + this.ttlMs;
    this.entries.set(key, { candidates: answer.candidates, conflict: answer.conflict, expiresAt });
  }

  /** Drops every entry that holds the instance (called on a failed attempt). */
  forgetInstance(instanceId: string): void {
    for (const [key, entry] of this.entries) {
      if (entry.candidates.some((candidate) => candidate.instance_id === instanceId))
        this.entries.delete(key);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
