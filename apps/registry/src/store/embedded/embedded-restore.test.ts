import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../store.js';
import { openEmbeddedStore } from './embedded-store.js';
import { journalFileFor } from './journal-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-embedded-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('EmbeddedStore on a manual clock', () => {
  it('gives restored leases a fresh full TTL', async () => {
    const clock = new ManualClock();
    const first = await openEmbeddedStore({ path: dir, clock });
    const lease = await first.grantLease(10_000);
    await first.commit({ puts: [{ key: '/reach/instances/a', value: 'a', lease }] });
    clock.advance(9_000);
    await first.close();
    const second = await openEmbeddedStore({ path: dir, clock });
    clock.advance(9_000);
    expect(await second.get('/reach/instances/a')).toBe('a');
    clock.advance(1_000);
    expect(await second.get('/reach/instances/a')).toBeNull();
    expect(await second.keepAlive(lease)).toEqual({ ok: false, error: 'lease_not_found' });
    await second.close();
  });

  it('writes a value kept as its source object into the journal and its snapshots as text', async () => {
    const clock = new ManualClock();
    const first = await openEmbeddedStore({ path: dir, clock, compactMinBytes: 1 });
    const lease = await first.grantLease(10_000);
    const record = { instance_id: 'a', endpoint: { host: '127.0.0.1', port: 1 }, n: 0 };
    const value = JSON.stringify(record);
    await first.commit({ puts: [{ key: '/reach/instances/a', value, lease, source: record }] });
    // Superseded puts of another key, so the journal rewrites itself as a snapshot of the live keys.
    for (let i = 0; i < 20; i++) {
      await first.commit({ puts: [{ key: '/reach/other', value: 'x'.repeat(100 + i) }] });
      await tick();
    }
    await first.flush();
    const journal = await readFile(journalFileFor(dir), 'utf8');
    // Rewritten: the first superseded value is gone, and the record is in the snapshot's puts.
    expect(journal).not.toContain(`"${'x'.repeat(100)}"`);
    expect(journal).toContain(JSON.stringify(['/reach/instances/a', value, lease]));
    expect(await first.get('/reach/instances/a')).toBe(value);
    await first.close();
    const second = await openEmbeddedStore({ path: dir, clock });
    expect(await second.list('/reach/instances/')).toEqual([{ key: '/reach/instances/a', value, lease }]);
    await second.close();
  });

  it('deletes expired keys through a watch in one batch, and remembers the expiry on disk', async () => {
    const clock = new ManualClock();
    const store = await openEmbeddedStore({ path: dir, clock });
    const lease = await store.grantLease(1_000);
    await store.commit({
      puts: [
        { key: '/x/a', value: '1', lease },
        { key: '/x/b', value: '2', lease },
      ],
    });
    const batches: WatchEvent[][] = [];
    await store.watch('/x/', (events) => batches.push(events));
    clock.advance(1_000);
    expect(batches).toEqual([]); // never delivered inside the timer callback
    await tick();
    expect(batches).toEqual([
      [
        { type: 'delete', key: '/x/a' },
        { type: 'delete', key: '/x/b' },
      ],
    ]);
    await store.close();
    const again = await openEmbeddedStore({ path: dir, clock });
    expect(await again.list('/x/')).toEqual([]);
    await again.close();
  });

  it('never writes a keep-alive to the journal', async () => {
    const clock = new ManualClock();
    const store = await openEmbeddedStore({ path: dir, clock });
    const lease = await store.grantLease(1_000);
    await store.flush();
    const file = journalFileFor(dir);
    const before = await readFile(file, 'utf8');
    for (let i = 0; i < 100; i++) expect((await store.keepAlive(lease)).ok).toBe(true);
    await store.flush();
    expect(await readFile(file, 'utf8')).toBe(before);
    await store.close();
  });

  it('refuses to open a journal another open store holds', async () => {
    const store = await openEmbeddedStore({ path: dir });
    await expect(openEmbeddedStore({ path: dir })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await store.close();
    const reopened = await openEmbeddedStore({ path: dir });
    await reopened.close();
  });

  it('rejects bad input with BAD_REQUEST', async () => {
    const store = await openEmbeddedStore({ path: dir });
    await expect(store.grantLease(0)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.grantLease(Number.NaN)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.commit({ puts: [{ key: '', value: 'x' }] })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      store.commit({ puts: [{ key: '/a', value: 1 as unknown as string }] }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await store.close();
  });

  it('makes the next candidate leader after resign, and tells it', async () => {
    const store = await openEmbeddedStore({ path: dir });
    const a = await store.campaign('e', 'a');
    const b = await store.campaign('e', 'b');
    const seen: boolean[] = [];
    b.onChange((v) => seen.push(v));
    await a.resign();
    await tick();
    expect(seen).toEqual([true]);
    await store.close();
    await tick();
    expect(seen).toEqual([true, false]);
  });
});
