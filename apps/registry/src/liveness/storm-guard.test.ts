import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { instanceRecord } from '../testing/fixtures.js';
import { TEST_LEASE_TTL_MS, testStormGuard } from '../testing/storm-guard-fixture.js';
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
    // As register does: a dead-man lease, granted (refreshed) now by this replica.
    const lease = await store.grantLease(TEST_LEASE_TTL_MS);
    table.track({ ...instanceRecord(`a-000${i}`), lease_id: lease }, true).leaseKeptMono = clock.now();
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
    // Held: no deadline, and the leases are refreshed on the instances' behalf, so all of them are
    // alive past heartbeat_timeout (15 s) and past the lease TTL (60 s) until the hold ends at 73 s.
    for (let t = 14_000; t <= 70_000; t += 1000) {
      clock.advance(1000);
      await guard.tick();
    }
    expect(guard.phase).toBe('holding');
    for (const entry of table.values()) expect((await store.keepAlive(entry.leaseId)).ok).toBe(true);
  });

  it('refreshes a held lease once per refresh window, at once when this replica never refreshed it', async () => {
    const entries = [...table.values()];
    // a-0000 beat on another replica: this one never refreshed its lease.
    entries[0]!.leaseKeptMono = Number.NEGATIVE_INFINITY;
    const keepAlive = vi.spyOn(store, 'keepAlive');
    clock.advance(7000);
    await guard.tick();
    expect(guard.phase).toBe('holding');
    expect(keepAlive.mock.calls.map(([lease]) => lease)).toEqual([entries[0]!.leaseId]);
    // The others were granted at 0: refreshed once 22.5 s have passed, a-0000 22.5 s after its own.
    for (let t = 8000; t <= 29_000; t += 1000) {
      clock.advance(1000);
      await guard.tick();
      const calls = keepAlive.mock.calls.length;
      expect(calls, `at ${t} ms`).toBe(t < 22_500 ? 1 : t < 29_500 ? 8 : 9);
    }
    clock.advance(1000);
    await guard.tick();
    expect(keepAlive).toHaveBeenCalledTimes(9);
  });

  it('evicts an instance silent for heartbeat_timeout when no storm holds it, once', async () => {
    const entries = [...table.values()];
    const revoke = vi.spyOn(store, 'revokeLease');
    for (let t = 1000; t <= 17_000; t += 1000) {
      clock.advance(1000);
      for (const entry of entries.slice(1)) table.beat(entry, entry.load);
      await guard.tick();
      // Silent since 0: inside its deadline up to 15 s, revoked at 15 s (its lease lasts 60 s).
      expect((await store.keepAlive(entries[0]!.leaseId)).ok, `at ${t} ms`).toBe(t < 15_000);
    }
    expect(guard.phase).toBe('idle');
    // Revoked once, though the watch that removes its entry never ran here.
    expect(revoke).toHaveBeenCalledTimes(1);
    for (const entry of entries.slice(1)) expect((await store.keepAlive(entry.leaseId)).ok).toBe(true);
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

  it('releases, never evicts, held instances still inside heartbeat_timeout; the deadline takes them after', async () => {
    // Everyone falls silent at once (a storm), then seven come back within their lease time.
    clock.advance(7000);
    await guard.tick();
    expect(guard.phase).toBe('holding');
    const entries = [...table.values()];
    for (const entry of entries.slice(0, 7)) table.beat(entry, entry.load);
    clock.advance(1000);
    await guard.tick();
    expect(guard.phase).toBe('idle');
    // The one still silent was 8 s into its 15 s: released to its deadline, not revoked.
    for (const entry of entries.slice(7)) expect((await store.keepAlive(entry.leaseId)).ok).toBe(true);
    for (let t = 9000; t <= 15_000; t += 1000) {
      clock.advance(1000);
      for (const entry of entries.slice(0, 7)) table.beat(entry, entry.load);
      await guard.tick();
    }
    expect((await store.keepAlive(entries[7]!.leaseId)).ok).toBe(false);
    for (const entry of entries.slice(0, 7)) expect((await store.keepAlive(entry.leaseId)).ok).toBe(true);
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
