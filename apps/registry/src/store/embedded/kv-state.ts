import type { KeyValue, LeaseId, PutOp, WatchEvent } from '../store.js';
import type { JournalPut } from './journal-records.js';
import type { LeaseTable } from './lease-table.js';

interface Entry {
  value: string;
  lease: LeaseId | undefined;
}

/** About what one key adds to a snapshot: `["key","value","lease"],` before JSON escaping. */
const entryBytes = (key: string, entry: Entry): number =>
  key.length + entry.value.length + (entry.lease === undefined ? 6 : entry.lease.length + 9);

/** The keys and values, kept consistent with the lease table's key sets; every change yields its events. */
export class KvState {
  readonly #data = new Map<string, Entry>();
  readonly #leases: LeaseTable;
  #bytes = 0;

  constructor(leases: LeaseTable) {
    this.#leases = leases;
  }

  get size(): number {
    return this.#data.size;
  }

  /** Roughly how many bytes the keys take in a journal snapshot (kept up to date, never recounted). */
  get bytes(): number {
    return this.#bytes;
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
      if (previous !== undefined) {
        this.#bytes -= entryBytes(put.key, previous);
        if (previous.lease !== undefined && previous.lease !== put.lease)
          this.#leases.unbind(previous.lease, put.key);
      }
      if (put.lease !== undefined) this.#leases.bind(put.lease, put.key);
      const entry: Entry = { value: put.value, lease: put.lease };
      this.#data.set(put.key, entry);
      this.#bytes += entryBytes(put.key, entry);
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
      const entry = this.#data.get(key);
      if (entry?.lease !== id) continue;
      this.#bytes -= entryBytes(key, entry);
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
    this.#bytes -= entryBytes(key, entry);
    this.#data.delete(key);
    return true;
  }
}
