import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { KEYS } from '../store/keys.js';
import type { RegistryStore, Watch, WatchEvent } from '../store/store.js';
import { instanceRecord } from '../testing/fixtures.js';
import { captureLogger, settle } from '../testing/test-registry.js';
import { InstanceCache } from './instance-cache.js';
import type { InstanceChanges } from './instance-source.js';

let dir: string;
let store: EmbeddedStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-cache-'));
  store = await openEmbeddedStore({ path: dir, clock: new ManualClock() });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const put = (id: string, value = JSON.stringify(instanceRecord(id))) =>
  store.commit({ puts: [{ key: KEYS.instance(id), value }] });

describe('InstanceCache', () => {
  it('starts from the snapshot and follows puts and deletes in batches', async () => {
    await put('a-0001');
    const { logger } = captureLogger();
    const cache = await InstanceCache.start(store, logger);
    expect(cache.primed).toBe(true);
    expect(cache.all().map((r) => r.instance_id)).toEqual(['a-0001']);
    const seen: InstanceChanges[] = [];
    cache.subscribe((changes) => seen.push(changes));
    await put('a-0002');
    await store.commit({ deletes: [KEYS.instance('a-0001')] });
    await settle();
    expect(cache.all().map((r) => r.instance_id)).toEqual(['a-0002']);
    expect(cache.get('a-0001')).toBeUndefined();
    expect(seen.flatMap((c) => c.put.map((r) => r.instance_id))).toEqual(['a-0002']);
    expect(seen.flatMap((c) => c.deleted)).toEqual(['a-0001']);
    await cache.close();
    expect(cache.primed).toBe(false);
  });

  it('keeps no reference to the watch snapshot once it is loaded', async () => {
    await put('a-0005');
    let watch: Watch | undefined;
    const watching: Pick<RegistryStore, 'watch'> = {
      watch: async (prefix, listener) => {
        watch = await store.watch(prefix, listener);
        return watch;
      },
    };
    const cache = await InstanceCache.start(watching as RegistryStore, captureLogger().logger);
    expect(cache.get('a-0005')?.instance_id).toBe('a-0005');
    expect(watch?.snapshot).toEqual([]);
    await cache.close();
  });

  it('hands the store each loaded record whose JSON is the text it was read from, to keep in its place', async () => {
    await put('a-0006');
    // Written by a version with a field this one does not know: its parse would lose it.
    await put('a-0007', JSON.stringify({ ...instanceRecord('a-0007'), added_later: 1 }));
    const kept: Array<[string, string, object]> = [];
    const keeping: Pick<RegistryStore, 'watch' | 'keepAsSource'> = {
      watch: (prefix, listener) => store.watch(prefix, listener),
      keepAsSource: (key, value, source) => kept.push([key, value, source]),
    };
    const cache = await InstanceCache.start(keeping as RegistryStore, captureLogger().logger);
    expect(cache.size).toBe(2);
    expect(kept).toEqual([
      [KEYS.instance('a-0006'), JSON.stringify(instanceRecord('a-0006')), cache.get('a-0006')],
    ]);
    expect(kept[0]![2]).toBe(cache.get('a-0006'));
    await cache.close();
  });

  it('skips records that are not valid, with a warning', async () => {
    const { logger, lines } = captureLogger();
    const cache = await InstanceCache.start(store, logger);
    await put('bad-0001', '{"instance_id": 5}');
    await put('bad-0002', 'not json');
    await settle();
    expect(cache.size).toBe(0);
    expect(lines.filter((line) => line.level === 40)).toHaveLength(2);
    await cache.close();
  });

  it('reuses the record object of its own announced writes, and parses anything else', async () => {
    const cache = await InstanceCache.start(store, captureLogger().logger);
    const mine = instanceRecord('a-0003');
    const value = JSON.stringify(mine);
    cache.expectWrite(mine, value);
    await put('a-0003', value);
    const other = instanceRecord('a-0004');
    cache.expectWrite(other, JSON.stringify(other));
    const changed = { ...other, card_sha256: 'A'.repeat(43) };
    await put('a-0004', JSON.stringify(changed));
    await settle();
    expect(cache.get('a-0003')).toBe(mine);
    expect(cache.get('a-0004')).toEqual(changed);
    await cache.close();
  });

  it('hands listeners one change per id, its state after the batch, and the records that left', async () => {
    await put('a-0006');
    await put('a-0007');
    // An etcd watch batch can carry several revisions of one key: drive the listener with such a batch.
    let deliver: ((events: WatchEvent[]) => void) | undefined;
    const watching: Pick<RegistryStore, 'watch'> = {
      watch: async (prefix, listener) => {
        deliver = listener;
        return store.watch(prefix, () => undefined);
      },
    };
    const cache = await InstanceCache.start(watching as RegistryStore, captureLogger().logger);
    const old6 = cache.get('a-0006')!;
    const old7 = cache.get('a-0007')!;
    const seen: InstanceChanges[] = [];
    cache.subscribe((changes) => seen.push(changes));
    const v1 = { ...instanceRecord('a-0006'), card_sha256: 'B'.repeat(43) };
    const v2 = { ...instanceRecord('a-0006'), card_sha256: 'C'.repeat(43) };
    const event = (id: string, value?: object): WatchEvent =>
      value === undefined
        ? { type: 'delete', key: KEYS.instance(id) }
        : { type: 'put', key: KEYS.instance(id), value: JSON.stringify(value) };
    deliver!([
      event('a-0006', v1),
      event('a-0006', v2),
      event('a-0007'),
      event('a-0008', instanceRecord('a-0008')),
      event('a-0008'),
      event('a-0009'),
    ]);
    expect(seen).toHaveLength(1);
    const [changes] = seen;
    expect(changes!.put).toEqual([v2]);
    expect(changes!.put[0]).toBe(cache.get('a-0006'));
    expect(changes!.deleted).toEqual(['a-0007']);
    // a-0008 came and went within the batch; a-0009 was never live: nobody hears of either.
    expect(changes!.replaced).toHaveLength(2);
    expect(changes!.replaced[0]).toBe(old6);
    expect(changes!.replaced[1]).toBe(old7);
    deliver!([event('a-0010')]);
    expect(seen).toHaveLength(1);
    await cache.close();
  });
});
