import type { KeyValue, LeaseId, PutOp, WatchEvent } from '../store.js';
import { HeldValue, type StoredValue, valueText } from './held-value.js';
import type { SnapshotPut } from './journal-records.js';
import { boundValue, type Lease, type LeaseTable } from './lease-table.js';

/**
 * What the store keeps per key: the value of a key bound to no lease (its text, or the object it is the
 * JSON of), or the lease that holds a bound key's value (one object per lease, not one per key: 40 bytes
 * per key at ten keys per instance).
 */
type Slot = StoredValue | Lease;

const isLease = (slot: Slot): slot is Lease => typeof slot !== 'string' && !(slot instanceof HeldValue);

/** About what one key adds to a snapshot: `["key","value","lease"],` before JSON escaping. */
const entryBytes = (key: string, value: StoredValue, lease: LeaseId | undefined): number =>
  key.length + value.length + (lease === undefined ? 6 : lease.length + 9);

/** The value of `key` as the store keeps it: its text, or (lease-bound) the object it is the JSON of. */
const slotValue = (key: string, slot: Slot): StoredValue => (isLease(slot) ? boundValue(slot, key)! : slot);
const leaseOf = (slot: Slot): LeaseId | undefined => (isLease(slot) ? slot.id : undefined);

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
 * The keys and values, kept consistent with the lease table's bindings; every change yields its events.
 * Keys are kept in buckets by `headOf`, so `list` reads only the buckets its prefix can match: listing
 * one agent's declaration history (a registration of an unseen version) costs the size of the
 * declarations, not a scan of every instance's ten keys (~1,000,000 at 100,000 instances).
 */
export class KvState {
  readonly #buckets = new Map<string, Map<string, Slot>>();
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
    const slot = this.#buckets.get(headOf(key))?.get(key);
    return slot === undefined ? null : valueText(slotValue(key, slot));
  }

  /** Keeps `source` in place of `key`'s value when its value is the text `value`. */
  keepAsSource(key: string, value: string, source: object): void {
    const bucket = this.#buckets.get(headOf(key));
    const slot = bucket?.get(key);
    if (slot === undefined || slotValue(key, slot) !== value) return;
    const held = new HeldValue(source, value.length);
    if (isLease(slot)) this.#leases.bind(slot.id, key, held);
    else bucket!.set(key, held);
  }

  /** Every key under `prefix`, sorted by key. */
  list(prefix: string): KeyValue[] {
    const out: KeyValue[] = [];
    for (const bucket of this.#bucketsUnder(prefix))
      for (const [key, slot] of bucket) {
        if (!key.startsWith(prefix)) continue;
        const value = valueText(slotValue(key, slot));
        out.push(isLease(slot) ? { key, value, lease: slot.id } : { key, value });
      }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** Every key under `prefix`, sorted, without their values (no held value's text is made). */
  listKeys(prefix: string): string[] {
    const out: string[] = [];
    for (const bucket of this.#bucketsUnder(prefix))
      for (const key of bucket.keys()) if (key.startsWith(prefix)) out.push(key);
    return out.sort();
  }

  /** The buckets that can hold keys under `prefix`. */
  #bucketsUnder(prefix: string): Map<string, Slot>[] {
    const head = headOf(prefix);
    if (head !== '') {
      // Every key under `prefix` has this head: one bucket holds them all.
      const bucket = this.#buckets.get(head);
      return bucket === undefined ? [] : [bucket];
    }
    // A short prefix: the buckets whose head it starts, and the keys of fewer than three slashes.
    return [...this.#buckets].filter(([h]) => h === '' || h.startsWith(prefix)).map(([, b]) => b);
  }

  /**
   * Applies deletes then puts; the caller has already checked that every named lease is live. A put
   * with a `source` is kept as that object, not its text (`HeldValue`).
   */
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
        this.#bytes -= entryBytes(put.key, slotValue(put.key, previous), leaseOf(previous));
        if (isLease(previous) && previous.id !== put.lease) this.#leases.unbind(previous, put.key);
      } else this.#size++;
      // A lease the table does not know (never the case for checked puts) leaves the key unbound.
      const value = put.source === undefined ? put.value : new HeldValue(put.source, put.value.length);
      const lease = put.lease === undefined ? undefined : this.#leases.bind(put.lease, put.key, value);
      bucket.set(put.key, lease ?? value);
      this.#bytes += entryBytes(put.key, put.value, lease?.id);
      events.push({ type: 'put', key: put.key, value: put.value });
    }
    return events;
  }

  /** Removes a lease and every key bound to it. */
  dropLease(id: LeaseId): WatchEvent[] {
    const lease = this.#leases.delete(id);
    const events: WatchEvent[] = [];
    if (lease === undefined) return events;
    const { bound } = lease;
    for (let i = 0; i < bound.length; i += 2) {
      const key = bound[i] as string; // keys are text; only values may be held objects
      const head = headOf(key);
      const bucket = this.#buckets.get(head);
      if (bucket?.get(key) !== lease) continue;
      this.#bytes -= entryBytes(key, bound[i + 1]!, id);
      this.#forget(head, bucket, key);
      events.push({ type: 'delete', key });
    }
    return events;
  }

  /** Every key as journal puts, for a snapshot (held values stay objects until written). */
  entries(): SnapshotPut[] {
    const out: SnapshotPut[] = [];
    for (const bucket of this.#buckets.values())
      for (const [key, slot] of bucket)
        out.push(isLease(slot) ? [key, boundValue(slot, key)!, slot.id] : [key, slot]);
    return out;
  }

  #remove(key: string): boolean {
    const head = headOf(key);
    const bucket = this.#buckets.get(head);
    const slot = bucket?.get(key);
    if (slot === undefined) return false;
    // The value first: a bound key's value lives in its lease's bindings, gone once unbound.
    this.#bytes -= entryBytes(key, slotValue(key, slot), leaseOf(slot));
    if (isLease(slot)) this.#leases.unbind(slot, key);
    this.#forget(head, bucket!, key);
    return true;
  }

  #forget(head: string, bucket: Map<string, Slot>, key: string): void {
    bucket.delete(key);
    this.#size--;
    if (bucket.size === 0) this.#buckets.delete(head);
  }
}
