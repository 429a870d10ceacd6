import type { KeyValue, LeaseId, PutOp, WatchEvent } from '../store.js';
import type { JournalPut } from './journal-records.js';
import type { LeaseTable } from './lease-table.js';

interface Entry {
  value: string;
  lease: LeaseId | undefined;
}

/** The keys and values, kept consistent with the lease table's key sets; every change yields its events. */
export class KvState {
  readonly #data = new Map<string, Entry>();
  readonly #leases: LeaseTable;

  constructor(leases: LeaseTable) {
    this.#leases = leases;
  }

  get size(): number {
    return this.#data.size;
  }

  get(key: string): string | null {
    return this.#data.get(key)?.value ?? null;
  }

  /** Every key under `prefix`, sorted by key. */
  list(prefix: string): KeyValue[] {
    const out: KeyValue[] = [];
    for (const [key, entry] of this.#data) {
      if (!key.startsWith(prefix)) continue;
      out.push(
        entry.lease === undefined
          ? { key, value: entry.value }
          : { key, value: entry.value, lease: entry.lease },
      );
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Applies deletes then puts; the caller has already checked that every named lease is live. */
  apply(puts: readonly PutOp[], deletes: readonly string[]): WatchEvent[] {
    const events: WatchEvent[] = [];
    for (const key of deletes) if (this.#remove(key)) events.push({ type: 'delete', key });
    for (const put of puts) {
      const previous = this.#data.get(put.key);
      if (previous?.lease !== undefined && previous.lease !== put.lease)
        this.#leases.unbind(previous.lease, put.key);
      if (put.lease !== undefined) this.#leases.bind(put.lease, put.key);
      this.#data.set(put.key, { value: put.value, lease: put.lease });
      events.push({ type: 'put', key: put.key, value: put.value });
    }
    return events;
  }

  /** Removes a lease and every key bound to it. */
  dropLease(id: LeaseId): WatchEvent[] {
    const keys = this.#leases.delete(id);
    const events: WatchEvent[] = [];
    if (keys === undefined) return events;
    for (const key of keys) {
      if (this.#data.get(key)?.lease !== id) continue;
      this.#data.delete(key);
      events.push({ type: 'delete', key });
    }
    return events;
  }

  /** Every key as journal puts, for a snapshot. */
  entries(): JournalPut[] {
    return Array.from(
      this.#data,
      ([key, entry]): JournalPut =>
        entry.lease === undefined ? [key, entry.value] : [key, entry.value, entry.lease],
    );
  }

  #remove(key: string): boolean {
    const entry = this.#data.get(key);
    if (entry === undefined) return false;
    if (entry.lease !== undefined) this.#leases.unbind(entry.lease, key);
    this.#data.delete(key);
    return true;
  }
}
