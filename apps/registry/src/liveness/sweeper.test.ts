import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { instanceRecord } from '../testing/fixtures.js';
import { testStormGuard } from '../testing/storm-guard-fixture.js';
import { captureLogger } from '../testing/test-registry.js';
import { LivenessTable } from './liveness-table.js';
import { Sweeper } from './sweeper.js';

let dir: string;
let clock: ManualClock;
let store: EmbeddedStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-sweeper-'));
  clock = new ManualClock(0);
  store = await openEmbeddedStore({ path: dir, clock });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** One replica's table and sweeper on the shared store. */
function replica(name: string) {
  const table = new LivenessTable(clock, 6000);
  const guard = testStormGuard({ table, store, clock });
  const sweeper = new Sweeper({
    store,
    clock,
    guard,
    table,
    logger: captureLogger().logger,
    replicaId: name,
    tickMs: 1000,
  });
  return { table, sweeper };
}

describe('Sweeper', () => {
  it('a replica that takes over leadership counts silence from the takeover, not from facts it could not see', async () => {
    const first = replica('registry-a');
    const second = replica('registry-b');
    await first.sweeper.start();
    await second.sweeper.start();
    expect(first.sweeper.isLeader).toBe(true);
    expect(second.sweeper.isLeader).toBe(false);
    // An agent whose heartbeats went to the first replica: the second last heard of it at 0.
    const lease = await store.grantLease(15_000);
    const entry = second.table.track({ ...instanceRecord('a-0001'), lease_id: lease }, false);
    clock.advance(9000);
    expect(second.table.stateOf(entry)).toBe('suspect');

    await first.sweeper.stop();
    await Promise.resolve();
    expect(second.sweeper.isLeader).toBe(true);
    expect(second.table.stateOf(entry)).toBe('healthy');
    // Still silent one suspect window after the takeover: now it is suspect.
    clock.advance(6001);
    expect(second.table.stateOf(entry)).toBe('suspect');
    await second.sweeper.stop();
  });
});
