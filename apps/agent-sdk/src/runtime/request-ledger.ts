import type { Clock } from '../clock/index.js';

/** Bounds of the request_id ledger. */
export interface LedgerLimits {
  /** Most request ids remembered; the least recently used goes first. @default 10000 */
  maxEntries: number;
  /** How long a finished request's answer is kept. @default 600000 (10 min) */
  ttlMs: number;
}

interface Entry<T> {
  value: T;
  /** Monotonic expiry; null while the request still runs (a running request never expires). */
  expiresAt: number | null;
}

/**
 * Remembers what happened to each request_id (the idempotency key): a bounded LRU whose entries
 * expire a TTL after the request finished.
 */
export class RequestLedger<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly limits: LedgerLimits,
    private readonly clock: Clock,
  ) {}

  /** Number of remembered ids. */
  get size(): number {
    return this.entries.size;
  }

  /** The live entry for `id`, refreshed as most recently used; undefined when unknown or expired. */
  get(id: string): T | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt !== null && entry.expiresAt <= this.clock.now()) {
      this.entries.delete(id);
      return undefined;
    }
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.value;
  }

  /** Remembers a request that has just started. */
  add(id: string, value: T): void {
    this.entries.delete(id);
    this.entries.set(id, { value, expiresAt: null });
    while (this.entries.size > this.limits.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Starts the TTL of a finished request, if `value` is still the one remembered under `id`. */
  finish(id: string, value: T): void {
    const entry = this.entries.get(id);
    if (entry?.value === value) entry.expiresAt = this.clock.now() + this.limits.ttlMs;
  }

  /** Forgets `id` if `value` is still the one remembered under it (an answer not worth replaying). */
  forget(id: string, value: T): void {
    if (this.entries.get(id)?.value === value) this.entries.delete(id);
  }
}
