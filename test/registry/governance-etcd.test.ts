import { createHash } from 'node:crypto';
import { cli } from '@agent-reach/console/cli';
import {
  openEtcdStore,
  type RegistryStore,
  type RunningRegistry,
  registryConfigFrom,
  registryLogger,
  startRegistry,
} from '@agent-reach/registry';
import { GOVERNANCE_EXPECTED, GOVERNANCE_FIXTURE, GOVERNANCE_NOW_MS } from '@agent-reach/registry/testing';
import { GovernanceReport } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';

// The governance report on real etcd: the fixture history gives the exact report, and two registry
// replicas serving real HTTP count routes and outcomes into one history without double counting.

const cluster = useEtcd();
const stores: RegistryStore[] = [];
const registries: RunningRegistry[] = [];

const openStore = async () => {
  const store = await openEtcdStore({
    endpoints: [cluster.etcd.endpoint],
    electionTtlSeconds: 2,
    onError: () => undefined,
  });
  stores.push(store);
  return store;
};

async function replica(
  store: RegistryStore,
  options: { clock?: ManualClock } = {},
): Promise<RunningRegistry> {
  const registry = await startRegistry({
    config: registryConfigFrom({ control_plane: { governance: { flush_interval: '1s' } } }),
    store,
    logger: registryLogger('silent'),
    listen: { host: '127.0.0.1', port: 0 },
    ...options,
  });
  registries.push(registry);
  return registry;
}

async function send(registry: RunningRegistry, method: string, path: string, payload?: unknown) {
  const response = await fetch(`${registry.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.stop();
  for (const store of stores.splice(0)) await store.close();
  await cluster.raw.delete().all();
});

describe('the governance report on etcd', () => {
  it('is exactly the hand-computed report on the fixture history', async () => {
    const store = await openStore();
    expect((await store.commit({ puts: GOVERNANCE_FIXTURE })).ok).toBe(true);
    const registry = await replica(store, { clock: new ManualClock(1_000, { wallMs: GOVERNANCE_NOW_MS }) });
    const reply = await send(registry, 'GET', '/v1/reports/governance?window=7d');
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body).toEqual(GOVERNANCE_EXPECTED);
    expect(GovernanceReport.parse(reply.body)).toEqual(GOVERNANCE_EXPECTED);
    const refused = await send(registry, 'GET', '/v1/reports/governance?window=1w');
    expect(refused).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('sums what two replicas counted (routes through the fast path, outcomes through hono) after their flushes', async () => {
    const a = await replica(await openStore());
    const b = await replica(await openStore());
    const registered = await send(a, 'POST', '/v1/agents', {
      declaration: {
        agent_name: 'summarizer-v2',
        domain: 'text_processing',
        version: '1',
        capabilities: { summarize: { input: ['text'], output: ['summary'] } },
        priority: 80,
        idempotent: true,
      },
      endpoint: { host: '127.0.0.1', port: 9100 },
      card_sha256: createHash('sha256').update('card').digest('base64url'),
    });
    expect(registered.status).toBe(201);
    const id = registered.body.instance_id as string;
    // B sees the instance through its watch before outcomes for it count there.
    await expect
      .poll(async () => (await send(b, 'GET', `/v1/agents/${id}`)).status, { timeout: 5_000 })
      .toBe(200);
    for (const registry of [a, b, b]) {
      expect((await send(registry, 'POST', '/v1/route', { operation: 'summarize' })).status).toBe(200);
    }
    const outcome = (n: number, extra: Record<string, unknown>) => ({
      instance_id: id,
      request_id: `r${n}`,
      operation: 'summarize',
      latency_ms: 5,
      ...extra,
    });
    await send(a, 'POST', '/v1/outcomes', {
      outcomes: [outcome(1, { ok: true, final: true }), outcome(2, { ok: true, final: true })],
    });
    await send(b, 'POST', '/v1/outcomes', {
      outcomes: [
        outcome(3, { ok: false, failure: 'connect', final: false }),
        outcome(3, { ok: true, attempt: 2, fallback: true, final: true }),
      ],
    });
    const expected = { routes: 3, calls: 3, hits: 2, fallbacks: 1, failures: 0 };
    for (const registry of [a, b]) {
      await expect
        .poll(
          async () => {
            const report = (await send(registry, 'GET', '/v1/reports/governance?window=2h'))
              .body as GovernanceReport;
            return report.capabilities.find((c) => c.capability === 'summarize');
          },
          { timeout: 10_000, interval: 250 },
        )
        .toMatchObject(expected);
    }
    // `reach report` reads the same figures.
    for (const json of [true, false]) {
      const out: string[] = [];
      const code = await cli(
        ['report', '--window', '2h', ...(json ? ['--json'] : [])],
        { REACH_REGISTRY_URL: b.url },
        { out: (text) => out.push(text), err: (text) => out.push(text) },
      );
      expect(code, out.join('\n')).toBe(0);
      if (json) {
        const report = GovernanceReport.parse(JSON.parse(out.join('\n')));
        expect(report.capabilities.find((c) => c.capability === 'summarize')).toMatchObject(expected);
      } else {
        expect(out.join('\n')).toMatch(/^summarize\s+3\s+3\s+66\.7%\s.*\s33\.3%\s.*\s0$/m);
      }
    }
    const keys = (await cluster.raw.getAll().prefix('/reach/governance/routes/').keys()).sort();
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(/\/summarize\/registry-\d+-[0-9a-f]{6}-[0-9a-f]{6}$/);
  });
});
