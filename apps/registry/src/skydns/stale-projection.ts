import { deleteInCommits, type RegistryStore } from '../store/store.js';
import { skydnsPath } from './skydns-path.js';

/**
 * Deletes every SkyDNS key of `zone`: what a registry that writes no projection finds left by one
 * that did (an embedded journal from before the projection became etcd's only). Returns how many.
 */
export async function removeSkydnsProjection(
  store: Pick<RegistryStore, 'list' | 'commit'>,
  zone: string,
): Promise<number> {
  const keys = (await store.list(`${skydnsPath(zone)}/`)).map((kv) => kv.key);
  await deleteInCommits(store, keys);
  return keys.length;
}
