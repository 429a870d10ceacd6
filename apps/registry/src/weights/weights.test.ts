import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outcome } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bindLivenessToInstances } from '../liveness/bind-cache.js';
import { LivenessTable } from '../liveness/liveness-table.js';
import { Router } from '../routing/router.js';
import { skydnsPath } from '../skydns/index.js';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { KEYS } from '../store/keys.js';
import { FakeInstanceSource } from '../testing/fake-instance-source.js';
import { FakeLiveness, testInstance } from '../testing/routing-instances.js';
import { computeWeight, shouldRepublish, WEIGHT_TIERS } from './compute-weight.js';
import { WeightPublisher } from './weight-publisher.js';
import { WeightTable } from './weight-table.js';

const inputs = { state: 'healthy', success_rate: 0.9, load: 1, warmup: 1, priority: 0.5 };

describe('computeWeight', () => {
  it('scales the routing factors to an SRV weight and puts suspects last', () => {
    expect(computeWeight(inputs, undefined, 0)).toMatchObject({ priority: 10, weight: 450, tier: 'healthy' });
    expect(computeWeight({ ...inputs, state: 'suspect' }, undefined, 0)).toMatchObject({
      priority: WEIGHT_TIERS.suspect,
      tier: 'suspect',
    });
    expect(computeWeight({ ...inputs, success_rate: 0, warmup: 0 }, undefined, 0).weight).toBe(1);
  });

  it('shows the warm-up ramp in doubling steps, so a new instance is republished 4 times over it', () => {
    const weightAt = (warmup: number) => computeWeight({ ...inputs, warmup }, undefined, 0).weight;
    expect([0.1, 0.15, 0.199, 0.2, 0.39, 0.4, 0.79, 0.8, 0.99, 1].map(weightAt)).toEqual([
      45, 45, 45, 90, 90, 180, 180, 360, 360, 450,
    ]);
    // The linear ramp over 300 s, asked every 5 s as the leader does: each step is one republication.
    let published = computeWeight({ ...inputs, warmup: 0.1 }, undefined, 0);
    let moves = 0;
    for (let age = 0; age <= 300; age += 5) {
      const next = computeWeight({ ...inputs, warmup: Math.min(1, 0.1 + (0.9 * age) / 300) }, published, 0);
      if (shouldRepublish(published, next)) {
        published = next;
        moves++;
      }
    }
    expect(moves).toBe(4);
    expect(published.weight).toBe(450);
  });

  it('enters and leaves the degraded tier at different thresholds so it does not flap', () => {
    const at = (success_rate: number, tier?: 'healthy' | 'degraded') =>
      computeWeight({ ...inputs, success_rate }, tier && { tier }, 0).tier;
    expect(at(0.4, 'healthy')).toBe('healthy');
    expect(at(0.3, 'healthy')).toBe('degraded');
    expect(at(0.4, 'degraded')).toBe('degraded');
    expect(at(0.5, 'degraded')).toBe('healthy');
  });

  it('republishes only past a 20 % change or on a tier change', () => {
    const published = computeWeight(inputs, undefined, 0);
    expect(shouldRepublish(undefined, published)).toBe(true);
    expect(shouldRepublish(published, computeWeight({ ...inputs, success_rate: 0.8 }, published, 0))).toBe(
      false,
    );
    expect(shouldRepublish(published, computeWeight({ ...inputs, success_rate: 0.7 }, published, 0))).toBe(
      true,
    );
    expect(shouldRepublish(published, computeWeight({ ...inputs, state: 'suspect' }, published, 0))).toBe(
      true,
    );
  });
});

describe('WeightPublisher and WeightTable', () => {
  let dir: string;
  let store: EmbeddedStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-weights-'));
    store = await openEmbeddedStore({ path: dir });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function setup() {
    // The wall clock moves with the monotonic one, as real clocks do (warm-up dates from the record's time).
    const clock = new ManualClock(1_000, { wallMs: Date.now() });
    const source = new FakeInstanceSource();
    const liveness = new FakeLiveness();
    const router = new Router({ source, clock, liveness });
    const table = await WeightTable.start(store, source);
    let leader = true;
    /** A publisher that writes through `commits` (the store, or a wrapper that watches its commits). */
    const publisherOn = (commits: Pick<EmbeddedStore, 'commit'>, maxWeightMovesPerPass?: number) =>
      new WeightPublisher({
        ...(maxWeightMovesPerPass === undefined ? {} : { maxWeightMovesPerPass }),
        store: commits,
        source,
        router,
        table,
        clock,
        isLeader: () => leader,
        skydns: { zone: 'agents.internal', ttlSec: 15 },
      });
    const publisher = publisherOn(store);
    const register = async (id: string) => {
      const lease = await store.grantLease(15_000);
      const record = { ...testInstance(id, { agent: 'summarizer' }), lease_id: lease };
      await store.commit({ puts: [{ key: KEYS.instance(id), value: JSON.stringify(record), lease }] });
      source.put(record);
      return record;
    };
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    return {
      clock,
      source,
      liveness,
      router,
      table,
      publisher,
      publisherOn,
      register,
      settle,
      setLeader: (v: boolean) => (leader = v),
    };
  }

  it('publishes weights bound to the lease, rewrites SkyDNS, and republishes only on a real change', async () => {
    const { router, table, publisher, register, settle, liveness, setLeader } = await setup();
    const record = await register('sum-1');
    expect(await publisher.publishOnce()).toEqual(['sum-1']);
    await settle();
    expect(table.get('sum-1')).toMatchObject({ priority: 10, weight: 450, tier: 'healthy' });
    expect(table.weightOf(record, 'summarize')).toEqual({ priority: 10, weight: 450 });
    const srv = await store.get(skydnsPath('sum-1._summarize._tcp.agents.internal'));
    expect(JSON.parse(srv!)).toMatchObject({ priority: 10, weight: 450, port: 9000 });
    // The leader remembers its write until a pass sees the table show it, then reads the table.
    expect(publisher.undelivered).toBe(1);
    expect(await publisher.publishOnce()).toEqual([]);
    expect(publisher.undelivered).toBe(0);

    // A little drift (one failure) stays under the 20 % threshold.
    const fail = (i: number) =>
      Outcome.parse({
        instance_id: 'sum-1',
        request_id: `r${i}`,
        ok: false,
        failure: 'overloaded',
        latency_ms: 1,
      });
    router.recordOutcomes({ outcomes: [fail(0)] });
    expect(await publisher.publishOnce()).toEqual([]);
    // Many failures and it moves (429s count as failures for the weights too).
    router.recordOutcomes({ outcomes: Array.from({ length: 10 }, (_, i) => fail(i + 1)) });
    expect(await publisher.publishOnce()).toEqual(['sum-1']);
    await settle();
    expect(table.get('sum-1')!.weight).toBeLessThan(300);

    liveness.set('sum-1', { state: 'suspect' });
    setLeader(false);
    expect(await publisher.publishOnce()).toEqual([]);
    setLeader(true);
    expect(await publisher.publishOnce()).toEqual(['sum-1']);
    await settle();
    expect(table.weightOf(record)).toMatchObject({ priority: WEIGHT_TIERS.suspect });

    // The weight dies with the lease.
    await store.revokeLease(record.lease_id);
    await settle();
    expect(table.get('sum-1')).toBeUndefined();
    expect(table.weightOf(record, 'summarize')).toEqual({ priority: 10, weight: 50 });
    router.close();
    await table.close();
  });

  it('writes nothing for a new instance until its weight moves away from the default DNS already shows', async () => {
    const { clock, source, publisher, router, table } = await setup();
    const lease = await store.grantLease(15_000);
    // Registered just now: warm-up has barely begun (factor 0.1), success is the prior (0.9), so the
    // weight is 1000 × 0.9 × 0.1 × 50/100 = 45 against the default 50 (the declaration's priority).
    const record = { ...testInstance('fresh-1', { registeredAt: Date.now() }), lease_id: lease };
    await store.commit({ puts: [{ key: KEYS.instance('fresh-1'), value: JSON.stringify(record), lease }] });
    source.put(record);
    expect(await publisher.publishOnce()).toEqual([]);
    expect(await store.get(KEYS.weight('fresh-1'))).toBeNull();
    // A minute into warm-up (factor 0.28, shown in DNS as the step 0.2) the weight is 90: far enough
    // from 50 to publish.
    clock.advance(60_000);
    expect(await publisher.publishOnce()).toEqual(['fresh-1']);
    expect(JSON.parse((await store.get(KEYS.weight('fresh-1')))!)).toMatchObject({
      priority: 10,
      weight: 90,
    });
    router.close();
    await table.close();
  });

  it('writes instances that move together in few commits of at most 128 puts', async () => {
    const { source, register, router, table, publisherOn } = await setup();
    const sizes: number[] = [];
    const counting = {
      commit: (ops: Parameters<typeof store.commit>[0]) => {
        sizes.push(ops.puts?.length ?? 0);
        return store.commit(ops);
      },
    };
    const publisher = publisherOn(counting);
    const ids = Array.from({ length: 100 }, (_, i) => `sum-${i}`);
    for (const id of ids) await register(id);
    expect((await publisher.publishOnce()).sort()).toEqual([...ids].sort());
    expect(sizes.length).toBeLessThan(10);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(128);
    // One lease gone in a cohort: its commit fails whole, then the others are written one by one.
    sizes.length = 0;
    source.put(testInstance('ghost-1', { agent: 'summarizer' }));
    for (const id of ids) source.remove(id);
    const late = await register('sum-late');
    expect(await publisher.publishOnce()).toEqual([late.instance_id]);
    expect(sizes.length).toBe(3);
    router.close();
    await table.close();
  });

  it('writes at most its budget of weight-only moves per pass, going on where it stopped, and every tier change', async () => {
    const { register, router, table, publisherOn, liveness, settle } = await setup();
    const publisher = publisherOn(store, 4);
    const ids = Array.from({ length: 10 }, (_, i) => `sum-${i}`);
    for (const id of ids) await register(id);
    // sum-8 turned suspect: a tier change, written past the budget in the first pass.
    liveness.set('sum-8', { state: 'suspect' });
    expect(await publisher.publishOnce()).toEqual(['sum-0', 'sum-1', 'sum-2', 'sum-3', 'sum-8']);
    // The next passes start at the first instance left unwritten, not at the start of the list.
    expect(await publisher.publishOnce()).toEqual(['sum-4', 'sum-5', 'sum-6', 'sum-7']);
    expect(await publisher.publishOnce()).toEqual(['sum-9']);
    expect(await publisher.publishOnce()).toEqual([]);
    await settle();
    for (const id of ids) expect(table.get(id)).toBeDefined();
    expect(table.get('sum-8')).toMatchObject({ priority: WEIGHT_TIERS.suspect });
    router.close();
    await table.close();
  });

  it('stopping ends a pass after its current chunk and waits for it; the store may close after', async () => {
    const { clock, register, router, table, publisherOn } = await setup();
    const commits: number[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = {
      commit: async (ops: Parameters<typeof store.commit>[0]) => {
        commits.push(ops.puts?.length ?? 0);
        await gate;
        return store.commit(ops);
      },
    };
    const publisher = publisherOn(slow);
    for (let i = 0; i < 100; i++) await register(`sum-${i}`);
    const errors: unknown[] = [];
    const stop = publisher.start(1000, (error) => errors.push(error));
    clock.advance(1000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(commits).toHaveLength(1);
    let stopped = false;
    const stopping = stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBe(false);
    release();
    await stopping;
    // The pass ended after the chunk it was writing: no more commits, and nothing was reported.
    expect(commits).toHaveLength(1);
    expect(errors).toEqual([]);
    router.close();
    await table.close();
  });

  it('finds a weight whether it arrived before or after its instance record, until it is deleted', async () => {
    const { table, register, settle } = await setup();
    const weight = (w: number) =>
      JSON.stringify({
        priority: 10,
        weight: w,
        tier: 'healthy',
        success_rate: 0.9,
        load: 1,
        updated_at: 'x',
      });
    // Before: the table keys it by the watch's id; after: by the record's own id string.
    await store.commit({ puts: [{ key: KEYS.weight('early-1'), value: weight(7) }] });
    const late = await register('late-1');
    await store.commit({ puts: [{ key: KEYS.weight('late-1'), value: weight(9), lease: late.lease_id }] });
    await register('early-1');
    await settle();
    expect(table.get('early-1')?.weight).toBe(7);
    expect(table.get(late.instance_id)?.weight).toBe(9);
    expect(table.get(['late', '1'].join('-'))?.weight).toBe(9);
    await store.commit({ deletes: [KEYS.weight('late-1'), KEYS.weight('early-1')] });
    await settle();
    expect(table.get('late-1')).toBeUndefined();
    expect(table.get('early-1')).toBeUndefined();
  });

  it('skips an instance whose lease is gone without failing the others', async () => {
    const { source, publisher, register, router, table } = await setup();
    await register('sum-1');
    source.put(testInstance('ghost-1', { agent: 'summarizer' }));
    expect(await publisher.publishOnce()).toEqual(['sum-1']);
    router.close();
    await table.close();
  });

  it('walks the liveness table as its roster: the same moves, budget and resumption, listed instances only', async () => {
    const clock = new ManualClock(1_000, { wallMs: Date.now() });
    const source = new FakeInstanceSource();
    const liveness = new LivenessTable(clock, 15_000);
    const unbind = bindLivenessToInstances(liveness, source);
    const router = new Router({ source, clock, liveness });
    const table = await WeightTable.start(store, source);
    const publisher = new WeightPublisher({
      store,
      source,
      router,
      table,
      clock,
      isLeader: () => true,
      roster: liveness,
      maxWeightMovesPerPass: 4,
    });
    const register = async (id: string) => {
      const lease = await store.grantLease(60_000);
      const record = { ...testInstance(id, { agent: 'summarizer' }), lease_id: lease };
      await store.commit({ puts: [{ key: KEYS.instance(id), value: JSON.stringify(record), lease }] });
      return record;
    };
    const ids = Array.from({ length: 10 }, (_, i) => `sum-${i}`);
    for (const id of ids) source.put(await register(id));
    // Tracked by a registration here, not yet delivered by the source's watch: not weighed yet.
    const pending = await register('sum-late');
    liveness.track(pending, true);
    // Everyone beat but sum-8, which turns suspect: a tier change, written past the budget.
    clock.advance(16_000);
    for (const id of ids)
      if (id !== 'sum-8') liveness.beat(liveness.get(id)!, { in_flight: 0, capacity: 1, queue: 0 });
    expect(await publisher.publishOnce()).toEqual(['sum-0', 'sum-1', 'sum-2', 'sum-3', 'sum-8']);
    expect(await publisher.publishOnce()).toEqual(['sum-4', 'sum-5', 'sum-6', 'sum-7']);
    source.put(pending);
    expect(await publisher.publishOnce()).toEqual(['sum-9', 'sum-late']);
    expect(await publisher.publishOnce()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(table.get('sum-8')).toMatchObject({ priority: WEIGHT_TIERS.suspect });
    expect(table.get('sum-1')).toMatchObject({ priority: WEIGHT_TIERS.healthy, weight: 450 });
    unbind();
    router.close();
    await table.close();
  });
});
