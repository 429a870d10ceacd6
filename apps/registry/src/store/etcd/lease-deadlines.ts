/**
 * Until when each lease this process granted or refreshed surely still lives in etcd, on this
 * process's monotonic clock. Refreshes of the others (a lease whose TTL may have run out, or one this
 * process never saw) go on a keep-alive stream of their own: etcd serves one stream's refreshes in
 * order, and a refresh of a lease that expired but is not yet revoked waits until etcd revokes it (at
 * most 1,000 revocations a second, through raft). On one shared stream, every heartbeat queued behind
 * it would wait as long.
 */
export class LeaseDeadlines {
  readonly #until = new Map<string, number>();
  readonly #marginMs: number;
  readonly #now: () => number;

  /**
   * @param marginMs how much sooner than its TTL says a lease counts as possibly expired (etcd's clock
   *   and this one may run at slightly different rates; etcd applies a grant after the call began).
   */
  constructor(options: { marginMs?: number; now?: () => number } = {}) {
    this.#marginMs = options.marginMs ?? 1000;
    this.#now = options.now ?? (() => performance.now());
  }

  /** The time now, to pass to `renewed` once the grant or refresh started now has answered. */
  now(): number {
    return this.#now();
  }

  /**
   * A grant or refresh of `lease` that started at `startedAt` answered with `ttlSeconds` (0: etcd has
   * no such lease). etcd restarted the TTL after the call began, so the lease lives at least until
   * `startedAt` + TTL.
   */
  renewed(lease: string, startedAt: number, ttlSeconds: number): void {
    if (ttlSeconds > 0) this.#until.set(lease, startedAt + ttlSeconds * 1000 - this.#marginMs);
    else this.#until.delete(lease);
  }

  /** Whether `lease` surely has not expired (false when its deadline passed or it is unknown here). */
  alive(lease: string): boolean {
    const until = this.#until.get(lease);
    return until !== undefined && this.#now() < until;
  }

  forget(lease: string): void {
    this.#until.delete(lease);
  }

  /** Drops every lease past its deadline: those of instances that stopped refreshing them. */
  sweep(): void {
    const now = this.#now();
    for (const [lease, until] of this.#until) if (until <= now) this.#until.delete(lease);
  }

  get size(): number {
    return this.#until.size;
  }
}
