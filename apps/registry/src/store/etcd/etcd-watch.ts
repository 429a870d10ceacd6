import type { Etcd3, IWatchResponse, Watcher } from 'etcd3';
import type { Watch, WatchEvent } from '../store.js';
import { toStoreError } from './etcd-errors.js';
import { prefixRange, rangeAll } from './etcd-range.js';

/**
 * A snapshot of `prefix` at revision R, then an etcd watch from R + 1: every later change arrives,
 * none twice. Batches are handed on after the caller has the snapshot, never synchronously.
 */
export async function openEtcdWatch(
  client: Etcd3,
  prefix: Buffer,
  namespaceLength: number,
  listener: (events: WatchEvent[]) => void,
  onError: (error: unknown) => void,
): Promise<Watch> {
  const { kvs, revision } = await rangeAll(client.kv, prefix, namespaceLength);
  const { key, range_end } = prefixRange(prefix);
  const watcher: Watcher = await client
    .watch()
    .inRange({ start: key, end: range_end })
    .startRevision(String(BigInt(revision) + 1n))
    .create();
  let pending: WatchEvent[] = [];
  let scheduled = false;
  let closed = false;
  const deliver = () => {
    scheduled = false;
    if (closed || pending.length === 0) return;
    const batch = pending;
    pending = [];
    try {
      listener(batch);
    } catch (error) {
      onError(error);
    }
  };
  watcher.on('data', (res: IWatchResponse) => {
    for (const event of res.events) {
      const k = event.kv.key.subarray(namespaceLength).toString('utf8');
      pending.push(
        event.type === 'Put'
          ? { type: 'put', key: k, value: event.kv.value.toString('utf8') }
          : { type: 'delete', key: k },
      );
    }
    if (pending.length > 0 && !scheduled) {
      scheduled = true;
      setImmediate(deliver);
    }
  });
  // etcd3 reconnects and resumes from the last revision by itself; a cancelled watch is reported.
  watcher.on('error', (error: unknown) => onError(toStoreError(error, 'watch')));
  return {
    snapshot: kvs,
    close: async () => {
      if (closed) return;
      closed = true;
      pending = [];
      await watcher.cancel().catch((error: unknown) => onError(toStoreError(error, 'watch cancel')));
    },
  };
}
