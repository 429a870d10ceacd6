import type { FileHandle } from 'node:fs/promises';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../store.js';
import { type EmbeddedStore, openEmbeddedStore } from './embedded-store.js';
import { journalFileFor } from './journal-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-fsync-ack-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The journal's fsyncs, seen through the store's `datasync` seam: counted, held until released, or
 * failed. Each one still reaches the disk for real unless it is failed.
 */
class Fsyncs {
  count = 0;
  #held: Array<() => void> | undefined;
  #failure: Error | undefined;

  readonly datasync = async (handle: FileHandle): Promise<void> => {
    this.count++;
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#held !== undefined) await new Promise<void>((resolve) => this.#held!.push(resolve));
    await handle.datasync();
  };

  /** Later fsyncs wait until `release`. */
  hold(): void {
    this.#held = [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const resolve of held) resolve();
  }

  /** How many fsyncs are waiting to be released. */
  get waiting(): number {
    return this.#held?.length ?? 0;
  }

  /** Later fsyncs fail, as a disk's EIO. */
  fail(): void {
    this.#failure = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  }
}

async function open(fsyncs: Fsyncs, fsyncBeforeAck = true): Promise<EmbeddedStore> {
  // Without the option, no interval fsync may fall into a test, however slow the machine.
  return openEmbeddedStore({
    path: dir,
    fsyncBeforeAck,
    syncIntervalMs: 3_600_000,
    datasync: fsyncs.datasync,
    onError: () => undefined,
  });
}

/**
 * How `promise` stands after a few turns of the event loop. Only used while the fsync it could wait for
 * is held, so 'pending' does not depend on timing: a commit that waited for nothing would have settled
 * within the first turn.
 */
async function stateOf(promise: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> {
  let state: 'resolved' | 'rejected' | 'pending' = 'pending';
  promise.then(
    () => {
      state = 'resolved';
    },
    () => {
      state = 'rejected';
    },
  );
  for (let i = 0; i < 5; i++) await turn();
  return state;
}

describe('the embedded store with fsyncBeforeAck', () => {
  it('answers a commit and a revoke only after the fsync that covers its journal record', async () => {
    const fsyncs = new Fsyncs();
    const store = await open(fsyncs);
    const lease = await store.grantLease(30_000);
    fsyncs.hold();
    const committed = store.commit({ puts: [{ key: '/reach/instances/a', value: 'a', lease }] });
    // The write goes through libuv's pool first: wait for the fsync after it, however busy the machine is.
    while (fsyncs.waiting === 0) await turn();
    expect(await stateOf(committed)).toBe('pending');
    // The record was written before the fsync began: it is in the file, not yet acknowledged.
    expect(await readFile(journalFileFor(dir), 'utf8')).toContain('/reach/instances/a');
    fsyncs.release();
    expect(await committed).toEqual({ ok: true, value: undefined });

    fsyncs.hold();
    const revoked = store.revokeLease(lease);
    while (fsyncs.waiting === 0) await turn();
    expect(await stateOf(revoked)).toBe('pending');
    fsyncs.release();
    await revoked;
    await store.close();
  });

  it('grants a lease without waiting for the disk: the commit that binds a key to it syncs the grant too', async () => {
    const fsyncs = new Fsyncs();
    const store = await open(fsyncs);
    fsyncs.hold();
    const lease = await store.grantLease(30_000);
    expect(fsyncs.waiting).toBe(0);
    const committed = store.commit({ puts: [{ key: '/reach/instances/a', value: 'a', lease }] });
    while (fsyncs.waiting === 0) await turn();
    // One write holds both records, so the commit's fsync is the grant's.
    const lines = (await readFile(journalFileFor(dir), 'utf8')).trim().split('\n');
    expect(lines.slice(-2).map((line) => JSON.parse(line).t)).toEqual(['grant', 'commit']);
    fsyncs.release();
    await committed;
    await store.close();
  });

  it('groups commits: one fsync for a turn of commits, one for all that arrive while an fsync runs', async () => {
    const fsyncs = new Fsyncs();
    const store = await open(fsyncs);
    const before = fsyncs.count;
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => store.commit({ puts: [{ key: `/reach/a/${i}`, value: 'v' }] })),
    );
    expect(fsyncs.count - before).toBe(1);

    // A commit whose fsync is held, then 50 commits over 10 turns while it runs: they share the next fsync.
    fsyncs.hold();
    const first = store.commit({ puts: [{ key: '/reach/b/first', value: 'v' }] });
    while (fsyncs.waiting === 0) await turn();
    const during: Array<Promise<unknown>> = [];
    for (let t = 0; t < 10; t++) {
      for (let i = 0; i < 5; i++)
        during.push(store.commit({ puts: [{ key: `/reach/b/${t}-${i}`, value: 'v' }] }));
      await turn();
    }
    expect(fsyncs.count - before).toBe(2);
    const next = fsyncs.count;
    fsyncs.release();
    await Promise.all([first, ...during]);
    expect(fsyncs.count - next).toBe(1);
    expect(await store.list('/reach/b/')).toHaveLength(51);
    await store.close();
  });

  it('without the option, acknowledges commits without any fsync (the interval syncs them)', async () => {
    const fsyncs = new Fsyncs();
    const store = await open(fsyncs, false);
    const before = fsyncs.count;
    for (let i = 0; i < 20; i++) await store.commit({ puts: [{ key: `/reach/a/${i}`, value: 'v' }] });
    await turn();
    expect(fsyncs.count).toBe(before);
    await store.close();
  });

  it('fails every write waiting on a failed fsync with STORE_UNAVAILABLE, and rolls back to what is on disk', async () => {
    const fsyncs = new Fsyncs();
    const store = await open(fsyncs);
    const kept = await store.grantLease(30_000);
    const revoked = await store.grantLease(30_000);
    await store.commit({
      puts: [
        { key: '/reach/instances/kept', value: 'k1', lease: kept },
        { key: '/reach/instances/revoked', value: 'r1', lease: revoked },
        { key: '/reach/owners/x', value: 'o1' },
      ],
    });
    const durable = await store.list('/reach/');
    const events: WatchEvent[] = [];
    await store.watch('/reach/', (batch) => events.push(...batch));

    fsyncs.fail();
    const fresh = await store.grantLease(30_000);
    const writes = [
      store.commit({ puts: [{ key: '/reach/instances/new', value: 'n', lease: fresh }] }),
      store.commit({ puts: [{ key: '/reach/instances/kept', value: 'k2', lease: kept }] }),
      store.commit({ deletes: ['/reach/owners/x'] }),
      store.revokeLease(revoked),
    ];
    // Applied in memory at once (other readers may see a change up to one fsync early)…
    expect(await store.get('/reach/instances/new')).toBe('n');
    const settled = await Promise.allSettled(writes);
    // …but no writer hears success, and once they hear of the failure none of it is visible.
    for (const outcome of settled) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    }
    expect(await store.list('/reach/')).toEqual(durable);
    expect((await store.keepAlive(fresh)).ok).toBe(false);
    expect((await store.keepAlive(revoked)).ok).toBe(true);
    // Watchers saw every change, then every change undone: they end where the store is.
    await turn();
    const seen = new Map(durable.map((kv) => [kv.key, kv.value]));
    for (const event of events) {
      if (event.type === 'put') seen.set(event.key, event.value);
      else seen.delete(event.key);
    }
    expect([...seen].sort()).toEqual(durable.map((kv) => [kv.key, kv.value]));
    // The store takes no more changes: what its journal holds past the failed fsync is unknown.
    await expect(store.commit({ puts: [{ key: '/reach/later', value: 'l' }] })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    await expect(store.close()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });

    // The records written before the failed fsync were cut from the file: a restart finds the same state.
    const restarted = await openEmbeddedStore({ path: dir });
    expect(await restarted.list('/reach/')).toEqual(durable);
    await restarted.close();
  });
});
