import type { IKeyValue, KVClient } from 'etcd3';
import type { KeyValue } from '../store.js';
import { prefixEnd } from './etcd-keys.js';

/** Keys in the first range request of a listing, before the size of a key-value is known. */
const FIRST_PAGE = 500;
/**
 * Bytes (keys and values) a later page aims at: a quarter of the 4 MiB gRPC message limit, so a page
 * of key-values four times larger than the average so far still fits.
 */
const PAGE_BYTES = 1024 * 1024;
/** Most keys in one page, however small they are. */
const MAX_PAGE = 10_000;

/**
 * Keys to ask for in the next page, from the average size of the key-values read so far. etcd walks
 * its in-memory index from a page's first key to the END of the range on every page (3.4: and copies
 * every revision found, under the index lock that writes wait on), so a listing's cost grows with
 * (keys / page size) × keys: 500-key pages made one pass over 100,000 identities hold etcd's writes
 * for seconds per page (docs/benchmarks.md, "etcd at 100,000").
 */
export function nextPageSize(bytesRead: number, keysRead: number): number {
  if (keysRead === 0) return FIRST_PAGE;
  const average = Math.max(1, bytesRead / keysRead);
  return Math.max(FIRST_PAGE, Math.min(MAX_PAGE, Math.floor(PAGE_BYTES / average)));
}

/** The range covering every key under `prefix`; an empty prefix covers the whole keyspace. */
export function prefixRange(prefix: Buffer): { key: Buffer; range_end: Buffer } {
  return prefix.length === 0
    ? { key: Buffer.from([0]), range_end: Buffer.from([0]) }
    : { key: prefix, range_end: prefixEnd(prefix) };
}

/** Converts an etcd key-value under `namespace` (stripped) to the store's shape. */
export function toKeyValue(kv: IKeyValue, namespaceLength: number): KeyValue {
  const key = kv.key.subarray(namespaceLength).toString('utf8');
  const value = kv.value.toString('utf8');
  const lease = String(kv.lease);
  return lease === '0' || lease === '' ? { key, value } : { key, value, lease };
}

/**
 * Reads every key under `prefix`, page by page, all at one revision so the pages form one
 * consistent snapshot; returns them sorted by key with that revision.
 */
export async function rangeAll(
  kv: KVClient,
  prefix: Buffer,
  namespaceLength: number,
): Promise<{ kvs: KeyValue[]; revision: string }> {
  const { key, range_end } = prefixRange(prefix);
  const out: KeyValue[] = [];
  let start = key;
  let revision: string | undefined;
  let bytesRead = 0;
  for (;;) {
    const res = await kv.range({
      key: start,
      range_end,
      limit: nextPageSize(bytesRead, out.length),
      ...(revision === undefined ? {} : { revision }),
    });
    revision ??= String(res.header.revision);
    for (const item of res.kvs) {
      bytesRead += item.key.length + item.value.length;
      out.push(toKeyValue(item, namespaceLength));
    }
    const last = res.kvs.at(-1);
    // The finished call stays reachable to minor GCs for a while: it must not carry the page along.
    res.kvs = [];
    if (!res.more || last === undefined) return { kvs: out, revision };
    // The next page starts just after the last key returned.
    start = Buffer.concat([last.key, Buffer.from([0])]);
  }
}
