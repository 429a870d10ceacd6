import { createHash } from 'node:crypto';
import {
  openEtcdStore,
  type RegistryStore,
  type RunningRegistry,
  registryConfigFrom,
  registryLogger,
  startRegistry,
} from '@agent-reach/registry';
import type { DeclarationHistoryEntry, RouteResponse } from '@agent-reach/sdk/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../harness/child-output.js';
import { useEtcd } from '../harness/use-etcd.js';

// Declaration versions on real etcd, over two registry replicas: what one records, verifies or counts,
// the other enforces and routes by, and both keep it across a restart.

const config = registryConfigFrom({
  control_plane: { heartbeat_interval: 1, heartbeat_timeout: 3, declarations: { verify_after_calls: 4 } },
});
const cardSha = createHash('sha256').update('card').digest('base64url');
const body = (port: number, version = '1', extra: Record<string, unknown> = {}) => ({
  declaration: {
    agent_name: 'summarizer-v2',
    domain: 'text_processing',
    version,
    capabilities: { summarize: { input: ['text'], output: ['summary'], serves: ['writing'] } },
    priority: 80,
    ...extra,
  },
  endpoint: { host: '127.0.0.1', port },
  card_sha256: cardSha,
});

const cluster = useEtcd();
const stores: RegistryStore[] = [];
const replicas: RunningRegistry[] = [];

async function replica(): Promise<RunningRegistry> {
  const store = await openEtcdStore({
    endpoints: [cluster.etcd.endpoint],
    electionTtlSeconds: 2,
    onError: () => undefined,
  });
  stores.push(store);
  const running = await startRegistry({
    config,
    store,
    logger: registryLogger('silent'),
    listen: { host: '127.0.0.1', port: 0 },
  });
  replicas.push(running);
  return running;
}
async function stopAll(): Promise<void> {
  for (const running of replicas.splice(0)) await running.stop();
  for (const store of stores.splice(0)) await store.close();
}
afterEach(async () => {
  await stopAll();
  await cluster.raw.delete().all();
});

async function send(on: RunningRegistry, method: string, path: string, payload?: unknown) {
  const response = await fetch(`${on.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}
const history = async (on: RunningRegistry) =>
  (await send(on, 'GET', '/v1/declarations/summarizer-v2')).body.history as DeclarationHistoryEntry[];
async function versionFactors(on: RunningRegistry): Promise<Record<string, number | undefined>> {
  const route = (await send(on, 'POST', '/v1/route', { operation: 'summarize', max_candidates: 10 }))
    .body as unknown as RouteResponse;
  return Object.fromEntries(route.candidates.map((c) => [c.instance_id, c.breakdown.version]));
}

describe('declaration versions on etcd, two replicas', () => {
  it('one replica refuses what the other recorded, right away; verification and preference are shared; a restart keeps them', async () => {
    const a = await replica();
    const b = await replica();
    // Whole answers are compared (status and body), so a failure says what came back instead.
    const registered1 = await send(a, 'POST', '/v1/agents', body(8001));
    expect(registered1).toMatchObject({ status: 201, body: { declaration_version: '1' } });
    const v1 = registered1.body.instance_id as string;
    // No wait: b has not necessarily seen a's history entry through its watch; it reads the store.
    const changed = await send(b, 'POST', '/v1/agents', body(8002, '1', { priority: 5 }));
    expect(changed).toMatchObject({ status: 409, body: { code: 'DECLARATION_VERSION_CHANGED' } });
    const unexplained = await send(b, 'POST', '/v1/agents', body(8003, '2'));
    expect(unexplained).toMatchObject({ status: 422, body: { code: 'CHANGE_REASON_REQUIRED' } });
    const registered2 = await send(
      b,
      'POST',
      '/v1/agents',
      body(8004, '2', { change_reason: 'longer inputs' }),
    );
    expect(registered2).toMatchObject({ status: 201, body: { declaration_version: '2' } });
    const v2 = registered2.body.instance_id as string;
    expect(await send(a, 'POST', '/v1/agents', body(8005))).toMatchObject({ status: 201 });

    // Unverified: both replicas prefer the newest version.
    await pollUntil(
      async () => ((await versionFactors(a))[v2] === 1 ? true : undefined),
      5_000,
      () => 'replica a never preferred version 2',
    );
    expect((await versionFactors(b))[v1]).toBe(0.1);

    // Successful calls reported to both replicas add up: 2 + 2 reach verify_after_calls (4).
    const ok = (prefix: string) => ({
      outcomes: [0, 1].map((i) => ({
        instance_id: v1,
        request_id: `${prefix}-${i}`,
        ok: true,
        latency_ms: 3,
      })),
    });
    expect((await send(a, 'POST', '/v1/outcomes', ok('a'))).status).toBe(202);
    expect((await send(b, 'POST', '/v1/outcomes', ok('b'))).status).toBe(202);
    await pollUntil(
      async () => ((await history(b))[0]?.verified ? true : undefined),
      10_000,
      () => 'version 1 was never verified by its calls',
    );
    const [first, second] = await history(a);
    expect(first).toMatchObject({ version: '1', verified: true, verified_by: 'calls', successful_calls: 4 });
    expect(second).toMatchObject({ version: '2', verified: false, change_reason: 'longer inputs' });
    // Verified beats newer: both replicas now prefer version 1.
    for (const on of [a, b]) {
      await pollUntil(
        async () => ((await versionFactors(on))[v1] === 1 ? true : undefined),
        5_000,
        () => 'version 1 was never preferred',
      );
      expect((await versionFactors(on))[v2]).toBe(0.1);
    }

    // An operator verifies version 2 on b: a prefers it too.
    const verified = await send(b, 'POST', '/v1/declarations/summarizer-v2/versions/2/verify', {
      reason: 'canary reviewed',
    });
    expect(verified.body).toMatchObject({ verified: true, verified_by: 'open' });
    await pollUntil(
      async () => ((await versionFactors(a))[v2] === 1 ? true : undefined),
      5_000,
      () => 'replica a never preferred the operator-verified version 2',
    );

    // Both replicas restart: the history, its verification and the immutability stay.
    await stopAll();
    const c = await replica();
    expect((await send(c, 'POST', '/v1/agents', body(8006, '2', { priority: 1 }))).body.code).toBe(
      'DECLARATION_VERSION_CHANGED',
    );
    expect((await history(c)).map((e) => [e.version, e.verified, e.verified_by])).toEqual([
      ['1', true, 'calls'],
      ['2', true, 'open'],
    ]);
  });
});
