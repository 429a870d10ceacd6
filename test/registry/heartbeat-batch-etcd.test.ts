import { createHash } from 'node:crypto';
import {
  openEtcdStore,
  type RegistryStore,
  type RunningRegistry,
  registryConfigFrom,
  registryLogger,
  startRegistry,
} from '@agent-reach/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';

// Heartbeats on etcd go out in batches over a few keep-alive streams; each must keep its own answer.
// A heartbeat sends a keep-alive only when this replica's last one is older than the refresh window,
// (lease_ttl − heartbeat_timeout) / 2: 2 s here, so a heartbeat 2 s after registering sends one.
const config = registryConfigFrom({
  control_plane: {
    heartbeat_interval: 2,
    heartbeat_timeout: 6,
    lease_ttl: 10,
    // No storm protection: its probe would prove these agent-less endpoints dead and evict them.
    storm: { min_instances: 1_000_000 },
    tokens: [{ name: 'bench', token: 'batch-token-1', capabilities: ['*'] }],
  },
});
const cardSha = createHash('sha256').update('card').digest('base64url');
const body = (port: number) => ({
  declaration: {
    agent_name: `batch-agent-${port}`,
    domain: 'batch',
    version: '1',
    capabilities: { batch_echo: { input: ['text'], output: ['text'] } },
    priority: 50,
    idempotent: true,
  },
  endpoint: { host: '127.0.0.1', port },
  card_sha256: cardSha,
});

const cluster = useEtcd();
let store: RegistryStore;
let registry: RunningRegistry;
beforeAll(async () => {
  store = await openEtcdStore({ endpoints: [cluster.etcd.endpoint], onError: () => undefined });
  registry = await startRegistry({
    config,
    store,
    logger: registryLogger('silent'),
    listen: { host: '127.0.0.1', port: 0 },
  });
});
afterAll(async () => {
  await registry?.stop();
  await store?.close();
});

async function post(path: string, payload: unknown, token: string) {
  const response = await fetch(`${registry.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(payload),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

interface Registered {
  id: string;
  token: string;
  lease: string;
}

async function register(count: number, firstPort: number): Promise<Registered[]> {
  const out: Registered[] = [];
  for (let i = 0; i < count; i++) {
    const reply = await post('/v1/agents', body(firstPort + i), 'batch-token-1');
    expect(reply.status).toBe(201);
    const id = reply.body.instance_id as string;
    const record = await cluster.raw.get(`/reach/instances/${id}`).exec();
    out.push({ id, token: reply.body.lease_token as string, lease: record.kvs[0]!.lease.toString() });
  }
  return out;
}

const beat = (instance: Registered, seq: number) =>
  post(`/v1/agents/${instance.id}/heartbeat`, { seq }, instance.token);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Past the refresh window (2 s) since the grant, inside heartbeat_timeout (6 s): a keep-alive is due. */
const untilKeepAliveDue = () => sleep(2200);

describe('batched heartbeats on real etcd', () => {
  it('answers each of many concurrent heartbeats on its own: alive, lease gone, stale', async () => {
    const instances = await register(30, 9100);
    await untilKeepAliveDue();
    const revoked = instances.slice(0, 5);
    for (const instance of revoked) await cluster.raw.leaseClient.leaseRevoke({ ID: instance.lease });
    // One instance sends the same seq twice in the burst: exactly one of the two is accepted.
    const twice = instances[10]!;
    const replies = await Promise.all([...instances.map((instance) => beat(instance, 1)), beat(twice, 1)]);
    for (const [i, reply] of replies.slice(0, 5).entries())
      expect(reply, `revoked ${revoked[i]!.id}`).toMatchObject({
        status: 410,
        body: { code: 'UNKNOWN_INSTANCE' },
      });
    const alive = replies.slice(5, 30);
    const pair = [replies[10]!, replies[30]!];
    expect(pair.map((reply) => reply.status).sort()).toEqual([200, 409]);
    expect(pair.find((reply) => reply.status === 409)?.body.code).toBe('STALE_HEARTBEAT');
    for (const reply of alive.filter((_, i) => i + 5 !== 10))
      expect(reply).toMatchObject({ status: 200, body: { status: 'ok' } });
    // The live leases were really refreshed: the full 10 s again (at most 7.8 s were left before).
    const ttl = await cluster.raw.leaseClient.leaseTimeToLive({ ID: instances[20]!.lease });
    expect(Number(ttl.TTL)).toBeGreaterThanOrEqual(9);
  });

  it('answers a heartbeat whose lease etcd revoked with UNKNOWN_INSTANCE: at once when a keep-alive is due, else once the watch saw it', async () => {
    const [due, fresh] = await register(2, 9200);
    await untilKeepAliveDue();
    await cluster.raw.leaseClient.leaseRevoke({ ID: due!.lease });
    expect(await beat(due!, 1)).toMatchObject({ status: 410, body: { code: 'UNKNOWN_INSTANCE' } });
    // fresh's last keep-alive is recent: its heartbeat trusts the liveness table, which the watch updates.
    expect((await beat(fresh!, 1)).status).toBe(200);
    await cluster.raw.leaseClient.leaseRevoke({ ID: fresh!.lease });
    let reply = await beat(fresh!, 2);
    for (let attempt = 0; attempt < 20 && reply.status === 200; attempt++) {
      await sleep(50);
      reply = await beat(fresh!, 3 + attempt);
    }
    expect(reply).toMatchObject({ status: 410, body: { code: 'UNKNOWN_INSTANCE' } });
  });

  it('answers 503 STORE_UNAVAILABLE while etcd is down once a keep-alive is due, and heartbeats again once it is back', async () => {
    const [instance] = await register(1, 9300);
    expect((await beat(instance!, 1)).status).toBe(200);
    await untilKeepAliveDue();
    cluster.etcd.kill();
    const down = await beat(instance!, 2);
    expect(down).toMatchObject({ status: 503, body: { code: 'STORE_UNAVAILABLE' } });
    await cluster.etcd.restart();
    let status = 0;
    // The seq of a refused heartbeat stays usable (the registry un-claims it).
    for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
      status = (await beat(instance!, 2)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
  });
});
