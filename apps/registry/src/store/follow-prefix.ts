import type { KeyValue, RegistryStore, Watch, WatchEvent } from './store.js';

/** What follows a prefix: the keys there when the watch began, then every change after them. */
export interface PrefixFollower {
  load(snapshot: KeyValue[]): void;
  apply(events: WatchEvent[]): void;
}

/**
 * Watches `prefix` and hands `follower` the snapshot, then the events in order: events that arrive
 * before the watch resolves are held and applied after the snapshot, so nothing falls between them.
 * The returned Watch no longer holds the snapshot (it would keep every value alive for the watch's life).
 */
export async function followPrefix(
  store: Pick<RegistryStore, 'watch'>,
  prefix: string,
  follower: PrefixFollower,
): Promise<Watch> {
  const early: WatchEvent[][] = [];
  let primed = false;
  const watch = await store.watch(prefix, (events) => {
    if (primed) follower.apply(events);
    else early.push(events);
  });
  const { snapshot } = watch;
  watch.snapshot = [];
  follower.load(snapshot);
  primed = true;
  for (const events of early) follower.apply(events);
  return watch;
}
