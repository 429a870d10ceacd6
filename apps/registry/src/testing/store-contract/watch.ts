import { expect, it } from 'vitest';
import type { Watch, WatchEvent } from '../../store/store.js';
import { EventLog, type StoreUnderTest, uniquePrefix, waitFor } from './harness.js';

/** Applies a snapshot and then events, as every watch consumer does. */
function replay(snapshot: Watch['snapshot'], events: WatchEvent[]): Map<string, string> {
  const state = new Map(snapshot.map((kv) => [kv.key, kv.value]));
  for (const event of events) {
    if (event.type === 'put') state.set(event.key, event.value);
    else state.delete(event.key);
  }
  return state;
}

/** Watch snapshots and the ordered, gap-free event stream. */
export function watchContract(ctx: () => StoreUnderTest): void {
  it('gives a snapshot, then later changes under the prefix only, in order', async () => {
    const { store } = ctx();
    const p = uniquePrefix('watch');
    await store.commit({
      puts: [
        { key: `${p}a`, value: '1' },
        { key: `${p}b`, value: '1' },
      ],
    });
    const log = new EventLog();
    const watch = await store.watch(p, log.listener);
    expect(watch.snapshot).toEqual([
      { key: `${p}a`, value: '1' },
      { key: `${p}b`, value: '1' },
    ]);
    await store.commit({
      puts: [
        { key: `${p}a`, value: '2' },
        { key: `${p.slice(0, -1)}-outside`, value: 'x' },
      ],
    });
    await store.commit({ deletes: [`${p}b`] });
    await store.commit({ puts: [{ key: `${p}c`, value: '3' }] });
    await waitFor('three events', () => log.events.length >= 3);
    expect(log.events).toEqual([
      { type: 'put', key: `${p}a`, value: '2' },
      { type: 'delete', key: `${p}b` },
      { type: 'put', key: `${p}c`, value: '3' },
    ]);
    await watch.close();
    await store.commit({ puts: [{ key: `${p}d`, value: '4' }] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(log.events.length).toBe(3);
  });

  it('misses nothing and repeats nothing when it starts amid concurrent commits', async () => {
    const { store } = ctx();
    const p = uniquePrefix('watch');
    const total = 150;
    const log = new EventLog();
    let watching: Promise<Watch> | undefined;
    await store.commit({ puts: [{ key: `${p}counter`, value: '0' }] });
    const counter = (async () => {
      for (let i = 1; i <= total; i++) {
        if (i === total / 3) watching = store.watch(p, log.listener);
        await store.commit({
          puts: [
            { key: `${p}counter`, value: String(i) },
            { key: `${p}item/${i}`, value: String(i) },
          ],
        });
      }
    })();
    const other = (async () => {
      for (let i = 1; i <= total; i++) {
        await store.commit(
          i % 3 === 0
            ? { deletes: [`${p}other/${i - 1}`] }
            : { puts: [{ key: `${p}other/${i}`, value: String(i) }] },
        );
      }
    })();
    await Promise.all([counter, other]);
    const watch = await watching!;
    const final = await store.list(p);
    await waitFor('the watch to catch up', () => {
      const state = replay(watch.snapshot, log.events);
      return state.size === final.length && final.every((kv) => state.get(kv.key) === kv.value);
    });
    // The counter goes up by exactly one per event after the snapshot's value: no gap, no repeat.
    const start = Number(watch.snapshot.find((kv) => kv.key === `${p}counter`)?.value);
    const seen = log.events
      .filter((e) => e.key === `${p}counter`)
      .map((e) => (e.type === 'put' ? Number(e.value) : -1));
    expect(seen).toEqual(Array.from({ length: total - start }, (_, i) => start + 1 + i));
    const items = watch.snapshot.filter((kv) => kv.key.startsWith(`${p}item/`)).length;
    expect(items).toBe(start);
    await watch.close();
  });
}
