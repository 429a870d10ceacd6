import type { IKeyValue, KVClient } from 'etcd3';
import type { KeyValue } from '../store.js';
import { prefixEnd } from './etcd-keys.js';

/** Keys per range request: etcd's default 4 MiB gRPC message limit must never be hit. */
const PAGE = 500;

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
  for (;;) {
    const res = await kv.range({
      key: start,
      range_end,
      limit: PAGE,
      ...(revision === undefined ? {} : { revision }),
    });
    revision ??= String(res.header.revision);
    for (const item of res.kvs) out.push(toKeyValue(item, namespaceLength));
    const last = res.kvs.at(-1);
    // The finished call stays reachable to minor GCs for a while: it must not carry the page along.
    res.kvs = [];
    if (!res.more || last === undefined) return { kvs: out, revision };
    // The next page starts just after the last key returned.
    start = Buffer.concat([last.key, Buffer.from([0])]);
  }
}
