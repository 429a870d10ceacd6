import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@agent-reach/sdk/testing';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { KEYS } from '../store/keys.js';
import { settle } from '../testing/test-registry.js';
import { LivenessTable } from './liveness-table.js';
import { LivenessBatch, SharedFacts } from './shared-facts.js';

// Two SharedFacts on one store, batches of 2 facts: how a flush lays its facts out and cleans up.
let dir: string;
let clock: ManualClock;
let store: EmbeddedStore;
const started: SharedFacts[] = [];

async function replica(replicaId: string, table: LivenessTable): Promise<SharedFacts> {
  const facts = await SharedFacts.start({
    store,
    table,
    clock,
    logger: pino({ level: 'silent' }),
    replicaId,
    flushMs: 1000,
    leaseTtlMs: 30_000,
    factsPerBatch: 2,
  });
  started.push(facts);
  return facts;
}

/** Tables of two replicas that both know `count` instances (each with a lease of its own). */
async function fleet(count: number) {
  const a = new LivenessTable(clock, 75_000);
  const b = new LivenessTable(clock, 75_000);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const lease = await store.grantLease(600_000);
    const record = { instance_id: `i-${i}`, lease_id: lease, lease_token_hash: 'x' } as never;
    a.track(record, true);
    b.track(record, true);
    ids.push(`i-${i}`);
  }
  return { a, b, ids };
}

const batchesOf = async (replicaId: string) =>
  (await store.list(KEYS.livenessOf(replicaId))).map(({ key, value }) => ({
    key,
    ids: LivenessBatch.parse(JSON.parse(value)).facts.map((fact) => fact.id),
  }));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-facts-batches-'));
  clock = new ManualClock();
  store = await openEmbeddedStore({ path: dir, clock });
});
afterEach(async () => {
  for (const facts of started.splice(0)) await facts.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('liveness facts in batches', () => {
  it('writes a flush as numbered batches, applies them to the other replica and deletes the batches a smaller flush no longer fills', async () => {
    const { a, b, ids } = await fleet(5);
    const writer = await replica('w', a);
    const reader = await replica('r', b);
    for (const [i, id] of ids.entries()) {
      const entry = a.get(id)!;
      entry.lastSeq = 10 + i;
      a.beat(entry, { in_flight: i, capacity: 8, queue: 0 });
      writer.note(entry);
    }
    await writer.flush();
    await settle(6);
    expect(await batchesOf('w')).toEqual([
      { key: KEYS.livenessBatch('w', 0), ids: ['i-0', 'i-1'] },
      { key: KEYS.livenessBatch('w', 1), ids: ['i-2', 'i-3'] },
      { key: KEYS.livenessBatch('w', 2), ids: ['i-4'] },
    ]);
    expect(ids.map((id) => b.get(id)!.lastSeq)).toEqual([10, 11, 12, 13, 14]);
    expect(b.get('i-3')!.load).toEqual({ in_flight: 3, capacity: 8, queue: 0 });
    expect(reader.counts.applied).toBe(5);
    // The writer applied none of its own.
    expect(writer.counts.applied).toBe(0);

    const entry = a.get('i-4')!;
    entry.lastSeq = 20;
    writer.note(entry);
    await writer.flush();
    await settle(6);
    expect(await batchesOf('w')).toEqual([{ key: KEYS.livenessBatch('w', 0), ids: ['i-4'] }]);
    expect(b.get('i-4')!.lastSeq).toBe(20);
  });

  it("binds the batches to the replica's lease: they go when it is no longer kept alive, and the next flush writes under a new one", async () => {
    const { a, ids } = await fleet(1);
    const writer = await replica('w', a);
    writer.note(a.get(ids[0]!)!);
    await writer.flush();
    expect(await batchesOf('w')).toHaveLength(1);
    clock.advance(31_000);
    await settle(6);
    expect(await batchesOf('w')).toHaveLength(0);
    writer.note(a.get(ids[0]!)!);
    await writer.flush();
    expect(await batchesOf('w')).toHaveLength(1);
    expect(writer.counts.failedFlushes).toBe(0);
  });

  it('keeps its lease alive while it flushes', async () => {
    const { a, ids } = await fleet(1);
    const writer = await replica('w', a);
    for (let second = 0; second < 90; second += 5) {
      writer.note(a.get(ids[0]!)!);
      await writer.flush();
      clock.advance(5_000);
      await settle(3);
    }
    expect(await batchesOf('w')).toHaveLength(1);
    expect(writer.counts.failedFlushes).toBe(0);
  });
});
