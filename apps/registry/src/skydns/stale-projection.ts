import type { RegistryStore } from '../store/store.js';
import { skydnsPath } from './skydns-path.js';

/** Most deletes in one commit (etcd's default `--max-txn-ops`). */
const MAX_OPS_PER_COMMIT = 128;

/**
 * Deletes every SkyDNS key of `zone`: what a registry that writes no projection finds left by one
 * that did (an embedded journal from before the projection became etcd's only). Returns how many.
 */
export async function removeSkydnsProjection(
  store: Pick<RegistryStore, 'list' | 'commit'>,
  zone: string,
): Promise<number> {
  const keys = (await store.list(`${skydnsPath(zone)}/`)).map((kv) => kv.key);
  for (let start = 0; start < keys.length; start += MAX_OPS_PER_COMMIT) {
    await store.commit({ deletes: keys.slice(start, start + MAX_OPS_PER_COMMIT) });
  }
  return keys.length;
}
