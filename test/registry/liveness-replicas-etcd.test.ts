import { createHash } from 'node:crypto';
import {
  openEtcdStore,
  type RegistryStore,
  type RunningRegistry,
  registryConfigFrom,
  registryLogger,
  startRegistry,
} from '@agent-reach/registry';
import { afterEach, describe, expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';

// Two replicas on one etcd: the leader decides deadlines from the facts the follower shares.
// 1 s interval, 3 s timeout, 12 s leases refreshed by a heartbeat once the last refresh is 4.5 s old.
const config = registryConfigFrom({
  control_plane: {
    heartbeat_interval: 1,
    heartbeat_timeout: 3,
    lease_ttl: 12,
    tokens: [{ name: 'text', token: 'text-token-1', capabilities: ['summarize', 'writing'] }],
  },
});
const cardSha = createHash('sha256').update('card').digest('base64url');
const body = {
  declaration: {
    agent_name: 'replica-agent',
    domain: 'text_processing',
    version: '1',
    capabilities: { summarize: { input: ['text'], output: ['summary'], serves: ['writing'] } },
    priority: 80,
    idempotent: true,
  },
  endpoint: { host: '127.0.0.1', port: 8001 },
  card_sha256: cardSha,
};

const cluster = useEtcd();
const running: Array<{ store: RegistryStore; registry: RunningRegistry }> = [];
async function replica(): Promise<RunningRegistry> {
  const store = await openEtcdStore({
    endpoints: [cluster.etcd.endpoint],
    electionTtlSeconds: 2,
    onError: () => undefined,
  });
  const registry = await startRegistry({
    config,
    store,
    logger: registryLogger('silent'),
    listen: { host: '127.0.0.1', port: 0 },
  });
  running.push({ store, registry });
  return registry;
}
afterEach(async () => {
  for (const { store, registry } of running.splice(0)) {
    await registry.stop();
    await store.close();
  }
  await cluster.raw.delete().all();
});

async function post(url: string, payload: unknown, token: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(payload),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const counter = async (registry: RunningRegistry, series: string) => {
  const text = await (await fetch(`${registry.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};
const KEEPALIVES = 'reach_registry_lease_keepalives_total{by="heartbeat"}';

describe('liveness deadlines with two replicas on real etcd', () => {
  it('keeps an agent that beats only on the follower; evicts it once it stops; the follower then says UNKNOWN_INSTANCE', async () => {
    const leader = await replica();
    const follower = await replica();
    expect(leader.sweeper.isLeader).toBe(true);
    expect(follower.sweeper.isLeader).toBe(false);
    const reply = await post(`${leader.url}/v1/agents`, body, 'text-token-1');
    const id = reply.body.instance_id as string;
    const token = reply.body.lease_token as string;
    const beat = (seq: number) => post(`${follower.url}/v1/agents/${id}/heartbeat`, { seq }, token);
    // Nine seconds (three timeouts) of heartbeats to the follower only.
    for (let seq = 1; seq <= 9; seq++) {
      await sleep(1000);
      expect((await beat(seq)).status).toBe(200);
    }
    expect((await cluster.raw.get(`/reach/instances/${id}`).exec()).kvs).toHaveLength(1);
    // The follower refreshed the lease (it never had: its first heartbeat did, then once 4.5 s later;
    // a third only if a loaded machine stretched the nine seconds past 10.5).
    const refreshes = await counter(follower, KEEPALIVES);
    expect(refreshes).toBeGreaterThanOrEqual(2);
    expect(refreshes).toBeLessThanOrEqual(3);
    expect(await counter(leader, KEEPALIVES)).toBe(0);
    // Silent from now: the leader revokes it within the timeout, a sweep and a fact flush.
    const silentAt = Date.now();
    while ((await cluster.raw.get(`/reach/instances/${id}`).exec()).kvs.length > 0) {
      expect(Date.now() - silentAt).toBeLessThan(6_000);
      await sleep(100);
    }
    expect(Date.now() - silentAt).toBeGreaterThanOrEqual(2_000);
    expect(await counter(leader, 'reach_registry_evictions_total')).toBe(1);
    let answer = await beat(10);
    for (let attempt = 0; attempt < 20 && answer.status === 200; attempt++) {
      await sleep(50);
      answer = await beat(11 + attempt);
    }
    expect(answer).toMatchObject({ status: 410, body: { code: 'UNKNOWN_INSTANCE' } });
  });
});
