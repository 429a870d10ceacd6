import type { Clock, TimerHandle } from '@agent-reach/sdk/clock';
import type { LeaseId } from '../store.js';
import type { StoredValue } from './held-value.js';

/** A lease, and the keys bound to it with their values (kept here: no object per key). */
export interface Lease {
  readonly id: LeaseId;
  readonly ttlMs: number;
  /** Monotonic deadline; the lease is gone once `clock.now()` reaches it. */
  deadline: number;
  /**
   * Bound keys (text) and their values, interleaved (`[key, value, key, value, …]`): a handful per lease, so
   * an array is smaller than a Map and as quick; replaced, not grown (a pushed array keeps spare room).
   */
  bound: readonly StoredValue[];
}

/** The value `key` has in `lease`'s bindings, if it is bound there. */
export function boundValue(lease: Lease, key: string): StoredValue | undefined {
  const { bound } = lease;
  for (let i = 0; i < bound.length; i += 2) if (bound[i] === key) return bound[i + 1];
  return undefined;
}

/** Longest single timer wait; a later deadline is simply re-checked then. */
const MAX_TIMER_MS = 60_000;

/**
 * Leases on the monotonic clock: O(1) refresh, and one timer set to the earliest deadline that
 * hands every expired lease to `onExpire` together.
 */
export class LeaseTable {
  readonly #clock: Clock;
  readonly #onExpire: (ids: LeaseId[]) => void;
  readonly #leases = new Map<LeaseId, Lease>();
  #timer: TimerHandle | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #closed = false;

  constructor(clock: Clock, onExpire: (ids: LeaseId[]) => void) {
    this.#clock = clock;
    this.#onExpire = onExpire;
  }

  get size(): number {
    return this.#leases.size;
  }

  /** Adds a lease whose full TTL starts now (also used for leases restored from disk). */
  grant(id: LeaseId, ttlMs: number): void {
    const deadline = this.#clock.now() + ttlMs;
    this.#leases.set(id, { id, ttlMs, deadline, bound: [] });
    if (deadline < this.#timerAt) this.#arm(deadline);
  }

  /** Restarts a live lease's TTL and returns it; null when the lease is unknown or expired. */
  touch(id: LeaseId): number | null {
    const lease = this.#live(id);
    if (lease === undefined) return null;
    lease.deadline = this.#clock.now() + lease.ttlMs;
    return lease.ttlMs;
  }

  /** True when the lease exists and has not reached its deadline. */
  isLive(id: LeaseId): boolean {
    return this.#live(id) !== undefined;
  }

  /** Binds `key` with `value` to a live lease (replacing its value if bound); the lease, or undefined if unknown. */
  bind(id: LeaseId, key: string, value: StoredValue): Lease | undefined {
    const lease = this.#leases.get(id);
    if (lease === undefined) return undefined;
    const { bound } = lease;
    for (let i = 0; i < bound.length; i += 2) {
      if (bound[i] !== key) continue;
      const next = bound.slice();
      next[i + 1] = value;
      lease.bound = next;
      return lease;
    }
    lease.bound = bound.concat(key, value);
    return lease;
  }

  /** Takes `key` out of `lease`'s bindings. */
  unbind(lease: Lease, key: string): void {
    const { bound } = lease;
    for (let i = 0; i < bound.length; i += 2) {
      if (bound[i] !== key) continue;
      lease.bound = bound.slice(0, i).concat(bound.slice(i + 2));
      return;
    }
  }

  /** Removes a lease and returns it, with the keys that were bound to it. */
  delete(id: LeaseId): Lease | undefined {
    const lease = this.#leases.get(id);
    this.#leases.delete(id);
    return lease;
  }

  /** Every lease with its TTL, for snapshots. */
  entries(): Array<[LeaseId, number]> {
    return Array.from(this.#leases, ([id, lease]) => [id, lease.ttlMs]);
  }

  /** Hands every lease past its deadline to `onExpire` at once. */
  reap(): void {
    const now = this.#clock.now();
    const expired: LeaseId[] = [];
    for (const [id, lease] of this.#leases) if (lease.deadline <= now) expired.push(id);
    if (expired.length > 0) this.#onExpire(expired);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #live(id: LeaseId): Lease | undefined {
    const lease = this.#leases.get(id);
    if (lease === undefined) return undefined;
    if (lease.deadline > this.#clock.now()) return lease;
    // Past its deadline but the timer has not run yet: expire it now so callers never see it alive.
    this.reap();
    return undefined;
  }

  #arm(deadline: number): void {
    if (this.#closed) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    const wait = Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(deadline - this.#clock.now())));
    this.#timerAt = Math.min(deadline, this.#clock.now() + wait);
    this.#timer = this.#clock.setTimeout(() => this.#fire(), wait);
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.reap();
    let earliest = Number.POSITIVE_INFINITY;
    for (const lease of this.#leases.values()) if (lease.deadline < earliest) earliest = lease.deadline;
    if (earliest !== Number.POSITIVE_INFINITY) this.#arm(earliest);
  }
}
