/** How a LeasePool grants leases, and its limits. */
export interface LeasePoolOptions {
  /** Grants a new lease of `ttlSeconds` (one etcd call, one raft write); resolves with its id. */
  grant(ttlSeconds: number): Promise<string>;
  /** Restarts a lease's TTL (a keep-alive: no raft write). */
  refresh(lease: string): Promise<unknown>;
  /** Told when a grant made ahead of need fails (the next request then grants its own). */
  onError(error: unknown): void;
  /** Most leases kept ready per TTL. @default 32 */
  maxSize?: number;
  /** A ready lease older than this is refreshed as it is handed out (its TTL has been running since its grant). @default 50 */
  freshMs?: number;
  /** A ready lease older than this is not handed out at all, and counts as not wanted. @default 500 */
  maxAgeMs?: number;
  /** Monotonic milliseconds. @default performance.now */
  now?: () => number;
}

interface Ready {
  lease: string;
  grantedAt: number;
}

/** The ready leases of one TTL. */
interface Shelf {
  /** In the order the grants came back. */
  ready: Ready[];
  granting: number;
  /** How many to keep ready or on the way: grows while requests come close together, shrinks as ready ones go stale. */
  wanted: number;
  lastTakeAt: number;
}

/**
 * Leases granted just ahead of need, so that a registration under load does not wait for its lease
 * grant (one raft round trip) before its transaction (another): it takes a lease granted moments ago
 * and the pool grants a replacement in the background. A lease's TTL runs from its grant, so a lease
 * that waited more than `freshMs` is refreshed over the keep-alive stream as it is handed out: every
 * lease handed out has its full TTL to live, give or take a few ms, as a fresh grant would.
 *
 * The pool follows demand. It grows by one lease each time a request finds it empty less than
 * `maxAgeMs` after the previous request, and shrinks by each ready lease that goes stale unused. A lone
 * registration therefore grants only its own lease, an idle registry holds none, and a stale lease
 * (which holds no keys) simply expires in etcd.
 */
export class LeasePool {
  readonly #grant: (ttlSeconds: number) => Promise<string>;
  readonly #onError: (error: unknown) => void;
  readonly #maxSize: number;
  readonly #refresh: (lease: string) => Promise<unknown>;
  readonly #freshMs: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  readonly #shelves = new Map<number, Shelf>();
  #closed = false;

  constructor(options: LeasePoolOptions) {
    this.#grant = options.grant;
    this.#onError = options.onError;
    this.#maxSize = options.maxSize ?? 32;
    this.#refresh = options.refresh;
    this.#freshMs = options.freshMs ?? 50;
    this.#maxAgeMs = options.maxAgeMs ?? 500;
    this.#now = options.now ?? (() => performance.now());
  }

  /** A lease of `ttlSeconds` granted at most `maxAgeMs` ago: a ready one, or a new grant. */
  take(ttlSeconds: number): Promise<string> {
    if (this.#closed) return this.#grant(ttlSeconds);
    const shelf = this.#shelf(ttlSeconds);
    const now = this.#now();
    const closeToLast = now - shelf.lastTakeAt < this.#maxAgeMs;
    shelf.lastTakeAt = now;
    this.#dropStale(shelf, now);
    const ready = shelf.ready.shift();
    if (ready === undefined && closeToLast) shelf.wanted = Math.min(this.#maxSize, shelf.wanted + 1);
    this.#refill(shelf, ttlSeconds);
    if (ready === undefined) return this.#grant(ttlSeconds);
    // Not awaited: the lease has most of its TTL left either way, and the refresh restarts it within a
    // few ms. Should the lease be gone, the transaction that names it fails and says so.
    if (now - ready.grantedAt > this.#freshMs) this.#refresh(ready.lease).catch(() => undefined);
    return Promise.resolve(ready.lease);
  }

  /** Leases ready now, over every TTL (for tests and metrics). */
  get readyCount(): number {
    let count = 0;
    for (const shelf of this.#shelves.values()) count += shelf.ready.length;
    return count;
  }

  /** Stops granting ahead; later requests each grant their own lease. Ready leases expire unused. */
  close(): void {
    this.#closed = true;
    this.#shelves.clear();
  }

  #shelf(ttlSeconds: number): Shelf {
    let shelf = this.#shelves.get(ttlSeconds);
    if (shelf === undefined) {
      shelf = { ready: [], granting: 0, wanted: 0, lastTakeAt: Number.NEGATIVE_INFINITY };
      this.#shelves.set(ttlSeconds, shelf);
    }
    return shelf;
  }

  #dropStale(shelf: Shelf, now: number): void {
    const fresh = shelf.ready.filter((ready) => now - ready.grantedAt <= this.#maxAgeMs);
    const stale = shelf.ready.length - fresh.length;
    if (stale === 0) return;
    shelf.ready = fresh;
    shelf.wanted = Math.max(0, shelf.wanted - stale);
  }

  #refill(shelf: Shelf, ttlSeconds: number): void {
    while (shelf.ready.length + shelf.granting < shelf.wanted) {
      shelf.granting++;
      // The TTL starts running when etcd applies the grant, after this moment: age is never understated.
      const grantedAt = this.#now();
      this.#grant(ttlSeconds).then(
        (lease) => {
          shelf.granting--;
          if (!this.#closed) shelf.ready.push({ lease, grantedAt });
        },
        (error: unknown) => {
          shelf.granting--;
          if (!this.#closed) this.#onError(error);
        },
      );
    }
  }
}
