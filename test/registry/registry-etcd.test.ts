import { createHash } from 'node:crypto';
import {
  openEtcdStore,
  type RegistryStore,
  type RunningRegistry,
  registryConfigFrom,
  registryLogger,
  skydnsName,
  startRegistry,
} from '@agent-reach/registry';
import { afterEach, describe, expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';

// Short intervals so real deadlines pass within a test: 1 s interval, 3 s timeout, leases of 12 s,
// refreshed by a heartbeat when the last refresh is (12 − 3) / 2 = 4.5 s old.
const controlPlane = {
  heartbeat_interval: 1,
  heartbeat_timeout: 3,
  lease_ttl: 12,
  tokens: [
    { name: 'text', token: 'text-token-1', capabilities: ['summarize', 'writing'] },
    { name: 'admin', token: 'admin-token-1', capabilities: ['*'] },
  ],
};
const config = registryConfigFrom({ control_plane: controlPlane });
const auth = { authorization: 'Bearer text-token-1' };
const cardSha = createHash('sha256').update('card').digest('base64url');
const declaration = (version = '1', change_reason?: string) => ({
  agent_name: 'summarizer-v2',
  domain: 'text_processing',
  version,
  ...(change_reason ? { change_reason } : {}),
  capabilities: { summarize: { input: ['text'], output: ['summary'], serves: ['writing'] } },
  priority: 80,
  idempotent: true,
});
const body = (port: number, version?: string, reason?: string) => ({
  declaration: declaration(version, reason),
  endpoint: { host: '127.0.0.1', port },
  card_sha256: cardSha,
});

const cluster = useEtcd();
let store: RegistryStore;
let registry: RunningRegistry;

async function start(options: { config?: typeof config } = {}): Promise<void> {
  store = await openEtcdStore({
    endpoints: [cluster.etcd.endpoint],
    electionTtlSeconds: 2,
    onError: () => undefined,
  });
  registry = await startRegistry({
    config: options.config ?? config,
    store,
    logger: registryLogger('silent'),
    listen: { host: '127.0.0.1', port: 0 },
  });
}
async function stop(): Promise<void> {
  await registry?.stop();
  await store?.close();
}

async function send(method: string, path: string, payload?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${registry.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(payload === undefined
      ? {}
      : { body: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

const rawKeys = async (prefix: string) => {
  const kvs = (await cluster.raw.getAll().prefix(prefix).exec()).kvs;
  return kvs.map((kv) => ({
    key: kv.key.toString(),
    value: kv.value.toString(),
    lease: kv.lease.toString(),
  }));
};
/** The SkyDNS keys of instances: all but the zone's NS message, which the registry writes at start. */
const NS_KEY = '/skydns/internal/agents/dns/ns/ns';
const instanceSkydnsKeys = async () => (await rawKeys('/skydns/')).filter((kv) => kv.key !== NS_KEY);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  await stop();
  await cluster.raw.delete().all();
});

const instanceKeys = (id: string) => rawKeys(`/reach/instances/${id}`);
async function waitUntilGone(id: string, withinMs: number): Promise<number> {
  const started = Date.now();
  while ((await instanceKeys(id)).length > 0 && Date.now() - started < withinMs) await sleep(100);
  return Date.now() - started;
}

describe('liveness deadlines on real etcd: the registry decides, the lease is a dead-man switch', () => {
  it('evicts a silent instance at heartbeat_timeout (3 s) by revoking its 12 s lease', async () => {
    await start();
    const reply = await send('POST', '/v1/agents', body(8001), auth);
    const id = reply.body.instance_id as string;
    const [record] = await instanceKeys(id);
    const lease = await cluster.raw.leaseClient.leaseTimeToLive({ ID: record!.lease });
    expect(Number(lease.grantedTTL)).toBe(12);
    const goneAfterMs = await waitUntilGone(id, 10_000);
    expect(goneAfterMs).toBeGreaterThanOrEqual(2_500);
    expect(goneAfterMs).toBeLessThan(5_000);
    expect(await instanceSkydnsKeys()).toEqual([]);
    // Revoked by the leader, years before its TTL: etcd no longer knows the lease.
    const after = await cluster.raw.leaseClient.leaseTimeToLive({ ID: record!.lease });
    expect(Number(after.TTL)).toBe(-1);
  });

  it('sends one keep-alive for several heartbeats, and says so on /metrics', async () => {
    await start();
    const reply = await send('POST', '/v1/agents', body(8001), auth);
    const id = reply.body.instance_id as string;
    const lease = { authorization: `Bearer ${reply.body.lease_token as string}` };
    // Eight heartbeats over 8 s: a keep-alive is due once, 4.5 s after the grant.
    for (let seq = 1; seq <= 8; seq++) {
      await sleep(1000);
      expect((await send('POST', `/v1/agents/${id}/heartbeat`, { seq }, lease)).status).toBe(200);
    }
    const metrics = await (await fetch(`${registry.url}/metrics`)).text();
    expect(metrics).toContain('reach_registry_lease_keepalives_total{by="heartbeat"} 1\n');
    expect(metrics).toContain('reach_registry_heartbeats_total{outcome="accepted"} 8\n');
    expect(await instanceKeys(id)).toHaveLength(1);
  });

  it('lets the records of a registry that stopped entirely go at the lease TTL, not at the deadline', async () => {
    const shortLease = registryConfigFrom({ control_plane: { ...controlPlane, lease_ttl: 6 } });
    await start({ config: shortLease });
    const reply = await send('POST', '/v1/agents', body(8001), auth);
    const id = reply.body.instance_id as string;
    const stoppedAt = Date.now();
    // Every replica gone: nobody evicts at the deadline and nobody refreshes the lease.
    await registry.stop();
    await sleep(4_000);
    expect(await instanceKeys(id)).toHaveLength(1);
    await waitUntilGone(id, 6_000);
    expect(await instanceKeys(id)).toEqual([]);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(5_000);
  });
});

describe('registry on real etcd', () => {
  it('publishes the registration and its SkyDNS keys in CoreDNS format, all under one lease', async () => {
    await start();
    const reply = await send('POST', '/v1/agents', body(8001), auth);
    expect(reply.status).toBe(201);
    const id = reply.body.instance_id as string;
    const [record] = await rawKeys('/reach/instances/');
    expect(record!.key).toBe(`/reach/instances/${id}`);
    const lease = record!.lease;
    expect(lease).not.toBe('0');
    expect(JSON.parse(record!.value).lease_id).toBe(lease);

    const all = await rawKeys('/skydns/');
    // The zone's NS message (CoreDNS's apex NS) outlives every agent: written at start, no lease.
    const ns = all.find((kv) => kv.key === NS_KEY);
    expect(ns?.lease).toBe('0');
    expect(JSON.parse(ns!.value)).toEqual({ host: '127.0.0.1', ttl: 3 });
    const skydns = all.filter((kv) => kv !== ns);
    const byKey = Object.fromEntries(skydns.map((kv) => [kv.key, JSON.parse(kv.value)]));
    const srv = { host: `${id}.agents.internal`, port: 8001, priority: 10, weight: 80, ttl: 3 };
    expect(byKey).toEqual({
      [`/skydns/internal/agents/${id}`]: { host: '127.0.0.1', ttl: 3 },
      [`/skydns/internal/agents/_tcp/_agent/${id}`]: srv,
      [`/skydns/internal/agents/_tcp/_summarize/${id}`]: srv,
      [`/skydns/internal/agents/_tcp/_writing/${id}`]: srv,
      [`/skydns/internal/agents/_agents/_a2a/_summarize/${id}`]: { text: 'capabilities=summarize', ttl: 3 },
      [`/skydns/internal/agents/_agents/_a2a/_writing/${id}`]: { text: 'capabilities=writing', ttl: 3 },
      [`/skydns/internal/agents/_agents/_index/_summarize/${id}`]: { text: 'agents=summarize:a2a', ttl: 3 },
      [`/skydns/internal/agents/_agents/_index/_writing/${id}`]: { text: 'agents=writing:a2a', ttl: 3 },
    });
    expect(skydns.every((kv) => kv.lease === lease)).toBe(true);
    // CoreDNS reads each key as the DNS name its msg.Domain rule gives.
    expect(skydns.map((kv) => skydnsName(kv.key)).sort()).toContain(`${id}._summarize._tcp.agents.internal.`);
    // Every SRV target resolves through the A entry of the same instance.
    expect(byKey[`/skydns/internal/agents/${id}`]).toBeDefined();
    const history = await rawKeys('/reach/declarations/');
    expect(history).toHaveLength(1);
    expect(history[0]!.lease).toBe('0');
  });

  it('refuses a replayed heartbeat without extending the lease; the keys go when it runs out', async () => {
    await start();
    const reply = await send('POST', '/v1/agents', body(8001), auth);
    const id = reply.body.instance_id as string;
    const lease = { authorization: `Bearer ${reply.body.lease_token as string}` };
    expect((await send('POST', `/v1/agents/${id}/heartbeat`, { seq: 1 }, lease)).status).toBe(200);
    const started = Date.now();
    let gone = false;
    while (Date.now() - started < 6_000) {
      const replay = await send('POST', `/v1/agents/${id}/heartbeat`, { seq: 1 }, lease);
      if (replay.status === 410) {
        gone = true;
        break;
      }
      expect(replay.body.code).toBe('STALE_HEARTBEAT');
      await sleep(300);
    }
    // Gone within heartbeat_timeout (3 s, rounded up by etcd) plus one interval, replays notwithstanding.
    expect(gone).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await instanceSkydnsKeys()).toEqual([]);
    expect(await rawKeys('/reach/instances/')).toEqual([]);
  });

  it('keeps a heartbeating instance alive, and deregister removes every key in one revision', async () => {
    await start();
    const reply = await send('POST', '/v1/agents', body(8001), auth);
    const id = reply.body.instance_id as string;
    const lease = { authorization: `Bearer ${reply.body.lease_token as string}` };
    for (let seq = 1; seq <= 5; seq++) {
      expect((await send('POST', `/v1/agents/${id}/heartbeat`, { seq }, lease)).status).toBe(200);
      await sleep(1000);
    }
    expect(await instanceSkydnsKeys()).toHaveLength(8);
    const revisions = new Set<string>();
    const watcher = await cluster.raw.watch().prefix('/').create();
    // The instance's keys go in one revision; its identity record (kept for a re-registration that a
    // deregistration rules out) is deleted right after, on its own.
    watcher.on('delete', (kv) => {
      if (!kv.key.toString().startsWith('/reach/identities/')) revisions.add(kv.mod_revision);
    });
    expect(await send('DELETE', `/v1/agents/${id}`, undefined, lease)).toMatchObject({ status: 200 });
    expect(await instanceSkydnsKeys()).toEqual([]);
    expect(await rawKeys('/reach/instances/')).toEqual([]);
    await sleep(300);
    await watcher.cancel();
    expect(revisions.size).toBe(1);
    expect(await rawKeys('/reach/identities/')).toEqual([]);
  });

  it('stores nothing for bad input', async () => {
    await start();
    const cases: Array<[unknown, Record<string, string>, number, string]> = [
      ['{"declaration":', auth, 400, 'INVALID_JSON'],
      [{ ...body(8001), endpoint: { host: 'not-an-ip', port: 1 } }, auth, 400, 'VALIDATION_FAILED'],
      [body(8001), {}, 401, 'UNAUTHORIZED'],
      [
        { ...body(8001), declaration: { ...declaration(), capabilities: { plan: {} } } },
        auth,
        403,
        'FORBIDDEN',
      ],
      [
        {
          ...body(8001),
          declaration: { ...declaration(), capabilities: { summarize: { serves: ['cooking'] } } },
        },
        { authorization: 'Bearer admin-token-1' },
        422,
        'UNKNOWN_CAPABILITY',
      ],
      [{ ...body(8001), pad: 'x'.repeat(300_000) }, auth, 413, 'PAYLOAD_TOO_LARGE'],
    ];
    for (const [payload, headers, status, code] of cases) {
      const reply = await send('POST', '/v1/agents', payload, headers);
      expect([reply.status, reply.body.code]).toEqual([status, code]);
    }
    for (const prefix of ['/reach/instances/', '/reach/declarations/']) {
      expect(await rawKeys(prefix)).toEqual([]);
    }
    expect(await instanceSkydnsKeys()).toEqual([]);
  });

  it('survives a registry restart: live registrations, tokens and history stay', async () => {
    await start();
    const first = await send('POST', '/v1/agents', body(8001), auth);
    const id = first.body.instance_id as string;
    const lease = { authorization: `Bearer ${first.body.lease_token as string}` };
    await send('POST', '/v1/agents', body(8002, '2', 'faster model'), auth);
    expect((await send('POST', `/v1/agents/${id}/heartbeat`, { seq: 7 }, lease)).status).toBe(200);
    await stop();
    await start();
    const listed = await send('GET', '/v1/agents');
    expect((listed.body.instances as Array<{ instance_id: string }>).map((v) => v.instance_id)).toContain(id);
    expect((await send('POST', `/v1/agents/${id}/heartbeat`, { seq: 8 }, lease)).status).toBe(200);
    expect((await send('POST', `/v1/agents/${id}/heartbeat`, { seq: 8 }, lease)).body.code).toBe(
      'STALE_HEARTBEAT',
    );
    const history = await send('GET', '/v1/declarations/summarizer-v2');
    expect(
      (history.body.history as Array<{ version: string; change_reason: string | null }>).map((e) => [
        e.version,
        e.change_reason,
      ]),
    ).toEqual([
      ['1', null],
      ['2', 'faster model'],
    ]);
    expect(await send('GET', '/readyz')).toMatchObject({ status: 200 });
    const metrics = await (await fetch(`${registry.url}/metrics`)).text();
    expect(metrics).toContain('reach_registry_leader 1');
  });
});
