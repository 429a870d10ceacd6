import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { instanceRecord } from '../testing/fixtures.js';
import { testStormGuard } from '../testing/storm-guard-fixture.js';
import type { ProbeVerdict } from './instance-prober.js';
import { LivenessTable } from './liveness-table.js';
import type { StormGuard } from './storm-guard.js';

let dir: string;
let clock: ManualClock;
let store: EmbeddedStore;
let table: LivenessTable;
let guard: StormGuard;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-storm-'));
  clock = new ManualClock(0);
  store = await openEmbeddedStore({ path: dir, clock });
  table = new LivenessTable(clock, 6000);
  guard = testStormGuard({ table, store, clock });
  for (let i = 0; i < 8; i++) {
    const lease = await store.grantLease(15_000);
    table.track({ ...instanceRecord(`a-000${i}`), lease_id: lease }, true);
  }
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('StormGuard', () => {
  it('counts silences that began while this process stalled as one window', async () => {
    clock.advance(1000);
    await guard.tick();
    expect(guard.phase).toBe('idle');
    // No sweep for 12 s (a pause): everyone fell silent at 6 s, more than one interval before now.
    clock.advance(12_000);
    await guard.tick();
    expect(guard.phase).toBe('holding');
    expect(guard.heldIds()).toHaveLength(8);
    // Held leases were refreshed on the instances' behalf: alive well past their own 15 s.
    clock.advance(10_000);
    await guard.tick();
    for (const entry of table.values()) expect((await store.keepAlive(entry.leaseId)).ok).toBe(true);
  });

  it('keeps the lease of an instance held after the others at once, not at their next round', async () => {
    const entries = [...table.values()];
    // a-0005 heartbeats once more at 1 s (its lease now ends at 16 s); a-0006 and a-0007 keep talking.
    clock.advance(1000);
    table.beat(entries[5]!, entries[5]!.load);
    expect((await store.keepAlive(entries[5]!.leaseId)).ok).toBe(true);
    for (let t = 1000; t < 7000; t += 1000) {
      for (const entry of entries.slice(6)) table.beat(entry, entry.load);
      if (t === 6000) {
        await guard.tick();
        expect(guard.phase).toBe('holding');
        expect(guard.heldIds()).toHaveLength(5);
      }
      clock.advance(1000);
    }
    // 7 s: a-0005 falls silent and joins the hold, one second after the others' leases were kept.
    for (const entry of entries.slice(6)) table.beat(entry, entry.load);
    await guard.tick();
    expect(guard.heldIds()).toContain('a-0005');
    // No sweep until past a-0005's own lease end: its lease was kept when it was held.
    clock.advance(9500);
    for (const entry of entries.slice(0, 6)) expect((await store.keepAlive(entry.leaseId)).ok).toBe(true);
  });

  it('does nothing below min_instances or below the threshold', async () => {
    for (const entry of [...table.values()].slice(0, 7)) table.beat(entry, entry.load);
    for (let s = 0; s < 8; s++) {
      clock.advance(1000);
      for (const entry of [...table.values()].slice(0, 7)) table.beat(entry, entry.load);
      await guard.tick();
    }
    expect(guard.phase).toBe('idle');
  });

  it('forgets every hold when leadership is lost', async () => {
    clock.advance(7000);
    await guard.tick();
    expect(guard.phase).toBe('holding');
    guard.reset();
    expect(guard.phase).toBe('idle');
    expect(guard.heldIds()).toEqual([]);
  });

  it('releases, never evicts, held instances still inside their own lease time', async () => {
    // Everyone falls silent at once (a storm), then seven come back within their lease time.
    clock.advance(7000);
    await guard.tick();
    expect(guard.phase).toBe('holding');
    const entries = [...table.values()];
    for (const entry of entries.slice(0, 7)) table.beat(entry, entry.load);
    clock.advance(1000);
    await guard.tick();
    expect(guard.phase).toBe('idle');
    // The one still silent was 8 s into a 15 s lease: released to their lease, not revoked.
    for (const entry of entries.slice(7)) expect((await store.keepAlive(entry.leaseId)).ok).toBe(true);
  });
});

describe('StormGuard with a prober', () => {
  it('evicts the provably dead at once, holds the unknown, and re-probes them each interval', async () => {
    const verdicts = new Map<string, ProbeVerdict>();
    const probed: string[] = [];
    const probing = testStormGuard({
      table,
      store,
      clock,
      prober: {
        probe: async (record) => {
          probed.push(record.instance_id);
          return verdicts.get(record.instance_id) ?? 'unknown';
        },
      },
    });
    const ids = [...table.values()].map((entry) => entry.instanceId);
    for (const id of ids.slice(0, 4)) verdicts.set(id, 'dead');
    verdicts.set(ids[4]!, 'alive');
    clock.advance(7000);
    await probing.tick();
    expect(probing.phase).toBe('holding');
    expect(probed.sort()).toEqual([...ids].sort());
    // Their leases are revoked: the keys go with them.
    for (const id of ids.slice(0, 4)) {
      expect((await store.keepAlive(table.get(id)!.leaseId)).ok).toBe(false);
      // What the registry's watch does when the revoked keys go.
      table.remove(id);
    }
    expect(probing.heldIds().sort()).toEqual(ids.slice(4).sort());
    // Dead ones leaving is no return of heartbeats: the hold goes on, and the rest are probed again.
    clock.advance(1000);
    await probing.tick();
    expect(probing.phase).toBe('holding');
    expect(probed).toHaveLength(8);
    clock.advance(5000);
    await probing.tick();
    expect(probed).toHaveLength(8 + 4);
  });
});
