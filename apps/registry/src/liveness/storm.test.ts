import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

interface Agent {
  id: string;
  token: string;
  seq: number;
  silent: boolean;
}

let t: TestRegistry;
let agents: Agent[];

beforeEach(async () => {
  t = await startTestRegistry({
    config: {
      control_plane: {
        storm: { threshold: 0.25, min_instances: 5, hold: 60, max_evictions_per_interval: 1 },
      },
    },
    // The registry's own pause or partition: nobody's endpoint answers, so nobody is proved dead.
    prober: { probe: async () => 'unknown' },
  });
  agents = [];
  for (let i = 0; i < 10; i++) {
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(9000 + i));
    agents.push({
      id: reply.body.instance_id as string,
      token: reply.body.lease_token as string,
      seq: 0,
      silent: false,
    });
  }
});
afterEach(async () => {
  await t.cleanup();
});

/** Moves time second by second; every agent that is not silent heartbeats every 5 s. */
async function run(seconds: number): Promise<void> {
  for (let s = 0; s < seconds; s++) {
    await t.advance(1000, 500);
    if (Math.round(t.clock.now() / 1000) % 5 !== 0) continue;
    for (const agent of agents.filter((a) => !a.silent)) {
      agent.seq++;
      const reply = await call(
        t.registry.app,
        'POST',
        `/v1/agents/${agent.id}/heartbeat`,
        { seq: agent.seq },
        bearer(agent.token),
      );
      expect(reply.status).toBe(200);
    }
  }
}

const liveIds = async () => (await t.store.list('/reach/instances/')).map((kv) => kv.key.split('/').pop());
const metric = async (name: string) => {
  const text = await (await t.registry.app.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
};

describe('storm protection', () => {
  it('holds 40 % of agents going silent at once instead of removing them, then evicts at the capped rate', async () => {
    await run(5);
    for (const agent of agents.slice(0, 4)) agent.silent = true;
    await run(10);
    expect(t.registry.storm.phase).toBe('holding');
    expect(await metric('reach_registry_storm_active')).toBe(1);
    expect(await metric('reach_registry_storm_events_total')).toBe(1);
    const started = t.logs.find((line) => line.event === 'storm_started');
    expect(started).toMatchObject({ level: 40, silent: 4, total: 10 });

    // Well past the 15 s lease TTL, nobody is removed while the hold lasts.
    await run(40);
    expect(await liveIds()).toHaveLength(10);
    const silentView = await call(t.registry.app, 'GET', `/v1/agents/${agents[0]!.id}`);
    expect(silentView.body.state).toBe('suspect');
    expect(await metric('reach_registry_evictions_total')).toBe(0);

    // The hold (60 s from detection) runs out: at most one eviction per 5 s interval.
    await run(20);
    const evicted = await metric('reach_registry_evictions_total');
    expect(evicted).toBeGreaterThanOrEqual(1);
    expect(evicted).toBeLessThanOrEqual(3);
    expect(await liveIds()).toHaveLength(10 - evicted);
    await run(20);
    expect(await liveIds()).toHaveLength(6);
    expect(await metric('reach_registry_evictions_total')).toBe(4);
    expect(await metric('reach_registry_storm_active')).toBe(0);
    expect(t.logs.filter((line) => line.event === 'storm_evicted')).toHaveLength(4);
    // The agents that kept heartbeating were never touched.
    expect((await liveIds()).sort()).toEqual(
      agents
        .slice(4)
        .map((a) => a.id)
        .sort(),
    );
  });

  it('ends early when heartbeats return', async () => {
    await run(5);
    for (const agent of agents.slice(0, 4)) agent.silent = true;
    await run(10);
    expect(t.registry.storm.phase).toBe('holding');
    for (const agent of agents.slice(0, 3)) agent.silent = false;
    await run(5);
    expect(t.logs.some((line) => line.event === 'storm_heartbeats_returned')).toBe(true);
    await run(10);
    expect(t.registry.storm.phase).toBe('idle');
    expect(await metric('reach_registry_storm_active')).toBe(0);
    expect(await liveIds()).toHaveLength(9);
    expect(await liveIds()).not.toContain(agents[3]!.id);
  });

  it('outside a storm, a silent agent simply expires with its lease', async () => {
    await run(5);
    agents[0]!.silent = true;
    await run(20);
    expect(t.registry.storm.phase).toBe('idle');
    expect(await metric('reach_registry_storm_events_total')).toBe(0);
    expect(await liveIds()).toHaveLength(9);
    expect(await liveIds()).not.toContain(agents[0]!.id);
  });
});
