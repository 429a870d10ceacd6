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

/**
 * The bucket a key is kept in: the key up to and including its third `/` (`/reach/instances/`,
 * `/reach/declarations/`, `/skydns/<tld>/`), or '' when it has fewer.
 */
function headOf(key: string): string {
  const first = key.indexOf('/');
  const second = first < 0 ? -1 : key.indexOf('/', first + 1);
  const third = second < 0 ? -1 : key.indexOf('/', second + 1);
  return third < 0 ? '' : key.slice(0, third + 1);
}

/**
 * The keys and values, kept consistent with the lease table's key sets; every change yields its events.
 * Keys are kept in buckets by `headOf`, so `list` reads only the buckets its prefix can match: listing
 * one agent's declaration history (a registration of an unseen version) costs the size of the
 * declarations, not a scan of every instance's ten keys (~1,000,000 at 100,000 instances).
 */
export class KvState {
  readonly #buckets = new Map<string, Map<string, Entry>>();
  readonly #leases: LeaseTable;
  #size = 0;
  #bytes = 0;

  constructor(leases: LeaseTable) {
    this.#leases = leases;
  }

  get size(): number {
    return this.#size;
  }

  /** Roughly how many bytes the keys take in a journal snapshot (kept up to date, never recounted). */
  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): string | null {
    return this.#buckets.get(headOf(key))?.get(key)?.value ?? null;
  }

  /** Every key under `prefix`, sorted by key. */
  list(prefix: string): KeyValue[] {
    const out: KeyValue[] = [];
    const head = headOf(prefix);
    if (head !== '') {
      // Every key under `prefix` has this head: one bucket holds them all.
      const bucket = this.#buckets.get(head);
      if (bucket !== undefined) KvState.#collect(bucket, prefix, out);
    } else {
      // A short prefix: the buckets whose head it starts, and the keys of fewer than three slashes.
      for (const [bucketHead, bucket] of this.#buckets)
        if (bucketHead === '' || bucketHead.startsWith(prefix)) KvState.#collect(bucket, prefix, out);
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  static #collect(bucket: Map<string, Entry>, prefix: string, out: KeyValue[]): void {
    for (const [key, entry] of bucket) {
      if (!key.startsWith(prefix)) continue;
      out.push(
        entry.lease === undefined
          ? { key, value: entry.value }
          : { key, value: entry.value, lease: entry.lease },
      );
    }
  }

  /** Applies deletes then puts; the caller has already checked that every named lease is live. */
  apply(puts: readonly PutOp[], deletes: readonly string[]): WatchEvent[] {
    const events: WatchEvent[] = [];
    for (const key of deletes) if (this.#remove(key)) events.push({ type: 'delete', key });
    for (const put of puts) {
      const head = headOf(put.key);
      let bucket = this.#buckets.get(head);
      if (bucket === undefined) {
        bucket = new Map();
        this.#buckets.set(head, bucket);
      }
      const previous = bucket.get(put.key);
      if (previous !== undefined) {
        this.#bytes -= entryBytes(put.key, previous);
        if (previous.lease !== undefined && previous.lease !== put.lease)
          this.#leases.unbind(previous.lease, put.key);
      } else this.#size++;
      if (put.lease !== undefined) this.#leases.bind(put.lease, put.key);
      const entry: Entry = { value: put.value, lease: put.lease };
      bucket.set(put.key, entry);
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
      const head = headOf(key);
      const bucket = this.#buckets.get(head);
      const entry = bucket?.get(key);
      if (entry?.lease !== id) continue;
      this.#bytes -= entryBytes(key, entry);
      this.#forget(head, bucket!, key);
      events.push({ type: 'delete', key });
    }
    return events;
  }

  /** Every key as journal puts, for a snapshot. */
  entries(): JournalPut[] {
    const out: JournalPut[] = [];
    for (const bucket of this.#buckets.values())
      for (const [key, entry] of bucket)
        out.push(entry.lease === undefined ? [key, entry.value] : [key, entry.value, entry.lease]);
    return out;
  }

  #remove(key: string): boolean {
    const head = headOf(key);
    const bucket = this.#buckets.get(head);
    const entry = bucket?.get(key);
    if (entry === undefined) return false;
    if (entry.lease !== undefined) this.#leases.unbind(entry.lease, key);
    this.#bytes -= entryBytes(key, entry);
    this.#forget(head, bucket!, key);
    return true;
  }

  #forget(head: string, bucket: Map<string, Entry>, key: string): void {
    bucket.delete(key);
    this.#size--;
    if (bucket.size === 0) this.#buckets.delete(head);
  }
}
