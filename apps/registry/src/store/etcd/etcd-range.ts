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
 * Where to cut a listing's key range next time: every `nextPageSize` keys of this listing, as full etcd
 * keys (`namespace` + key). A later listing of the same prefix asks for each stretch between two cuts
 * on its own, so etcd walks each key about once instead of once per page (see `nextPageSize`).
 */
export function cutsOf(kvs: KeyValue[], namespace: Buffer, bytesRead: number): Buffer[] {
  const every = nextPageSize(bytesRead, kvs.length);
  const cuts: Buffer[] = [];
  for (let i = every; i < kvs.length; i += every)
    cuts.push(Buffer.concat([namespace, Buffer.from(kvs[i]!.key, 'utf8')]));
  return cuts;
}

/**
 * Reads every key under `prefix`, page by page, all at one revision so the pages form one
 * consistent snapshot; returns them sorted by key with that revision, and where to cut the next listing
 * of the same prefix (`cutsOf`). With `cuts` from the previous listing, each stretch between two cuts is
 * a range of its own (bounded by the next cut, not by the prefix's end), so each page walks only its own
 * stretch of etcd's index: at 100,000 identities an unbounded page walked all of them, ~15 times a pass.
 * Any cuts give the same result (the stretches cover the prefix exactly); stale ones only cost requests.
 * With `keysOnly`, etcd sends no values (each key-value's value is then '').
 */
export async function rangeAll(
  kv: KVClient,
  prefix: Buffer,
  namespaceLength: number,
  cuts: Buffer[] = [],
  keysOnly = false,
): Promise<{ kvs: KeyValue[]; revision: string; cuts: Buffer[] }> {
  const { key, range_end } = prefixRange(prefix);
  const toEnd = range_end.length === 1 && range_end[0] === 0;
  // The stretches: [key, cut1), [cut1, cut2), …, [cutN, range_end); cuts outside the range are dropped.
  const edges = cuts.filter(
    (cut) => Buffer.compare(cut, key) > 0 && (toEnd || Buffer.compare(cut, range_end) < 0),
  );
  const out: KeyValue[] = [];
  let revision: string | undefined;
  let bytesRead = 0;
  for (let stretch = 0; stretch <= edges.length; stretch++) {
    let start = stretch === 0 ? key : edges[stretch - 1]!;
    const end = stretch === edges.length ? range_end : edges[stretch]!;
    for (;;) {
      const res = await kv.range({
        key: start,
        range_end: end,
        limit: nextPageSize(bytesRead, out.length),
        ...(keysOnly ? { keys_only: true } : {}),
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
      if (!res.more || last === undefined) break;
      // The next page starts just after the last key returned.
      start = Buffer.concat([last.key, Buffer.from([0])]);
    }
  }
  return {
    kvs: out,
    revision: revision!,
    cuts: cutsOf(out, prefix.subarray(0, namespaceLength), bytesRead),
  };
}
