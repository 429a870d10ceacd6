import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registryConfigFrom } from '../config.js';
import { createRegistry, type Registry } from '../registry.js';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { KEYS } from '../store/keys.js';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { captureLogger, settle } from '../testing/test-registry.js';
import { LivenessBatch } from './shared-facts.js';

// Two replicas on one store and one clock: the shape of two registry pods on one etcd.
let dir: string;
let clock: ManualClock;
let store: EmbeddedStore;
let replicas: Registry[];

async function replica(name: string, shareLiveness = true): Promise<Registry> {
  const registry = await createRegistry({
    config: registryConfigFrom({}),
    store,
    clock,
    logger: captureLogger().logger,
    replicaId: name,
    // Several replicas on one in-process store share facts as they do on etcd.
    shareLiveness,
  });
  replicas.push(registry);
  return registry;
}

async function advance(ms: number, stepMs = 250): Promise<void> {
  for (let moved = 0; moved < ms; moved += stepMs) {
    clock.advance(Math.min(stepMs, ms - moved));
    await settle(6);
  }
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-facts-'));
  clock = new ManualClock();
  store = await openEmbeddedStore({ path: dir, clock });
  replicas = [];
});
afterEach(async () => {
  for (const registry of replicas) await registry.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('liveness facts shared between replicas', () => {
  it('keeps an agent that heartbeats only to a follower healthy in the leader and in DNS', async () => {
    const leader = await replica('a');
    const follower = await replica('b');
    expect(leader.sweeper.isLeader).toBe(true);
    expect(follower.sweeper.isLeader).toBe(false);
    const reply = await call(leader.app, 'POST', '/v1/agents', registerBody(9100));
    const id = reply.body.instance_id as string;
    const token = reply.body.lease_token as string;
    for (let seq = 1; seq <= 8; seq++) {
      await advance(5000);
      const beat = await call(
        follower.app,
        'POST',
        `/v1/agents/${id}/heartbeat`,
        { seq, load: { in_flight: 3, capacity: 4, queue: 0 } },
        bearer(token),
      );
      expect(beat.status).toBe(200);
    }
    await advance(1000);
    // 40 s without a heartbeat of its own: the leader knows of them only through the shared facts.
    expect(leader.liveness.snapshot(id)).toMatchObject({
      state: 'healthy',
      load: { in_flight: 3, capacity: 4 },
    });
    expect(leader.routing.weights?.get(id)?.tier ?? 'healthy').toBe('healthy');
    const view = await call(leader.app, 'GET', `/v1/agents/${id}`);
    expect(view.body).toMatchObject({ state: 'healthy', last_seq: 8 });
    // The stored fact is what the follower accepted, in the follower's batch, naming the instance's lease.
    const batch = LivenessBatch.parse(JSON.parse((await store.get(KEYS.livenessBatch('b', 0)))!));
    expect(batch.by).toBe('b');
    expect(batch.facts).toEqual([
      expect.objectContaining({ id, seq: 8, lease: leader.instances.get(id)?.lease_id }),
    ]);
    // A replay of a seq the follower took is refused by the leader too.
    const replay = await call(leader.app, 'POST', `/v1/agents/${id}/heartbeat`, { seq: 8 }, bearer(token));
    expect(replay.body.code).toBe('STALE_HEARTBEAT');
    // The leader, which decides the deadlines, did not evict it: its records are all there.
    expect(await store.get(KEYS.instance(id))).not.toBeNull();
  });

  it('evicts an agent that stops heartbeating to a follower at heartbeat_timeout; the follower then answers UNKNOWN_INSTANCE', async () => {
    const leader = await replica('a');
    const follower = await replica('b');
    const reply = await call(leader.app, 'POST', '/v1/agents', registerBody(9150));
    const id = reply.body.instance_id as string;
    const token = reply.body.lease_token as string;
    const beat = (seq: number) =>
      call(follower.app, 'POST', `/v1/agents/${id}/heartbeat`, { seq }, bearer(token));
    for (let seq = 1; seq <= 6; seq++) {
      await advance(5000);
      expect((await beat(seq)).status).toBe(200);
    }
    // Silent from 30 s: still there 14 s later (its lease, kept by the follower, lasts far longer)...
    await advance(14_000);
    expect(await store.get(KEYS.instance(id))).not.toBeNull();
    expect(follower.liveness.get(id)).toBeDefined();
    // ...and revoked by the leader once 15 s have passed (plus one sweep and one fact flush at most).
    await advance(3000);
    expect(await store.get(KEYS.instance(id))).toBeNull();
    expect(leader.liveness.snapshot(id)?.state).toBe('unavailable');
    // The follower saw the delete through its watch: the agent is told to register again.
    expect((await beat(7)).body.code).toBe('UNKNOWN_INSTANCE');
  });

  it('changes nothing in the published weights when the leader fails over', async () => {
    const first = await replica('a');
    const second = await replica('b');
    const agents: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < 6; i++) {
      const reply = await call(first.app, 'POST', '/v1/agents', registerBody(9200 + i));
      agents.push({ id: reply.body.instance_id as string, token: reply.body.lease_token as string });
    }
    // Half heartbeat to each replica, for a minute.
    for (let seq = 1; seq <= 12; seq++) {
      await advance(5000);
      for (const [i, agent] of agents.entries()) {
        const target = i % 2 === 0 ? first : second;
        const beat = await call(
          target.app,
          'POST',
          `/v1/agents/${agent.id}/heartbeat`,
          { seq },
          bearer(agent.token),
        );
        expect(beat.status).toBe(200);
      }
    }
    const tiers = () => agents.map((agent) => second.routing.weights?.get(agent.id)?.priority ?? 10);
    expect(tiers()).toEqual(agents.map(() => 10));
    await first.close();
    replicas.splice(replicas.indexOf(first), 1);
    await advance(1000);
    expect(second.sweeper.isLeader).toBe(true);
    for (let seq = 13; seq <= 18; seq++) {
      await advance(5000);
      for (const agent of agents) {
        const beat = await call(
          second.app,
          'POST',
          `/v1/agents/${agent.id}/heartbeat`,
          { seq },
          bearer(agent.token),
        );
        expect(beat.status).toBe(200);
      }
      expect(tiers()).toEqual(agents.map(() => 10));
    }
  });
});

describe('liveness facts on a store no other process reads', () => {
  it('are not written by default: an embedded store has no other replica to read them', async () => {
    const sole = await replica('a', false);
    expect(sole.facts).toBeUndefined();
    const reply = await call(sole.app, 'POST', '/v1/agents', registerBody(9300));
    const id = reply.body.instance_id as string;
    const token = reply.body.lease_token as string;
    const beat = (seq: number) =>
      call(
        sole.app,
        'POST',
        `/v1/agents/${id}/heartbeat`,
        { seq, load: { in_flight: 2, capacity: 4, queue: 0 } },
        bearer(token),
      );
    for (let seq = 1; seq <= 3; seq++) {
      await advance(5000);
      expect((await beat(seq)).status).toBe(200);
    }
    await advance(1000);
    expect(await store.list(KEYS.livenessPrefix)).toEqual([]);
    // The replica's own table still holds what its heartbeats said.
    expect(sole.liveness.snapshot(id)).toMatchObject({ state: 'healthy', load: { in_flight: 2 } });
    expect((await beat(3)).body.code).toBe('STALE_HEARTBEAT');
  });
});
