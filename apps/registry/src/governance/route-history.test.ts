import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GovernanceReport } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registryConfigFrom } from '../config.js';
import { createRegistry, type Registry } from '../registry.js';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { KEYS } from '../store/keys.js';
import type { RegistryStore } from '../store/store.js';
import { registerBody } from '../testing/fixtures.js';
import { call } from '../testing/http.js';
import { captureLogger, settle } from '../testing/test-registry.js';
import { HOUR_MS, OVERFLOW, RouteHistory } from './route-history.js';

const START = Date.parse('2026-03-10T10:59:00.000Z');
const HIT = { retries: 0, hit: true, fallback: false, failed: false };
const FALLBACK = { retries: 1, hit: false, fallback: true, failed: false };
const FAILED = { retries: 2, hit: false, fallback: true, failed: true };

let dir: string;
let clock: ManualClock;
let store: EmbeddedStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-history-'));
  clock = new ManualClock(1_000, { wallMs: START });
  store = await openEmbeddedStore({ path: dir, clock });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const stored = async () =>
  Object.fromEntries(
    (await store.list(KEYS.routeHistoryPrefix)).map(({ key, value }) => [key, JSON.parse(value)]),
  );

describe('RouteHistory', () => {
  it('counts in memory and writes only its own keys, the totals per hour, on flush', async () => {
    const history = new RouteHistory({ store, clock, writer: 'reg-a-1' });
    history.routed('summarize');
    history.callEnded('summarize', HIT);
    expect(await stored()).toEqual({});
    expect(await history.flush()).toBe(true);
    history.routed('summarize');
    history.callEnded('summarize', FALLBACK);
    clock.advance(60_000); // into the next hour
    history.callEnded('summarize', FAILED);
    history.routed('translate');
    expect(await history.flush()).toBe(true);
    expect(await stored()).toEqual({
      '/reach/governance/routes/2026-03-10/10/summarize/reg-a-1': {
        routes: 2,
        calls: 2,
        hits: 1,
        fallbacks: 1,
        failures: 0,
      },
      '/reach/governance/routes/2026-03-10/11/summarize/reg-a-1': {
        routes: 0,
        calls: 1,
        hits: 0,
        fallbacks: 1,
        failures: 1,
      },
      '/reach/governance/routes/2026-03-10/11/translate/reg-a-1': {
        routes: 1,
        calls: 0,
        hits: 0,
        fallbacks: 0,
        failures: 0,
      },
    });
  });

  it('sums two writers of one hour and reads its own unflushed counts from memory', async () => {
    const a = new RouteHistory({ store, clock, writer: 'reg-a-1' });
    const b = new RouteHistory({ store, clock, writer: 'reg-b-2' });
    for (let i = 0; i < 3; i++) a.callEnded('summarize', HIT);
    b.callEnded('summarize', FALLBACK);
    await a.flush();
    await b.flush();
    a.callEnded('summarize', HIT); // not flushed: a sees it, b does not yet
    const hour = Math.floor(START / HOUR_MS) * HOUR_MS;
    const sum = (buckets: Awaited<ReturnType<RouteHistory['read']>>) =>
      buckets.reduce((n, bucket) => n + bucket.calls, 0);
    expect(sum(await a.read(hour, hour + HOUR_MS))).toBe(5);
    expect(sum(await b.read(hour, hour + HOUR_MS))).toBe(4);
    await a.flush();
    expect(sum(await b.read(hour, hour + HOUR_MS))).toBe(5);
    // A flush with nothing changed writes nothing and changes nothing.
    const before = await stored();
    await a.flush();
    expect(await stored()).toEqual(before);
  });

  it('keeps counts whose commit failed and writes them on the next flush', async () => {
    let fail = true;
    const flaky: Pick<RegistryStore, 'commit' | 'list'> = {
      commit: (ops) => (fail ? Promise.reject(new Error('store down')) : store.commit(ops)),
      list: (prefix) => store.list(prefix),
    };
    const history = new RouteHistory({ store: flaky, clock, writer: 'reg-a-1' });
    history.callEnded('summarize', HIT);
    clock.advance(120_000); // the failed bucket's hour is over
    history.callEnded('summarize', HIT);
    expect(await history.flush()).toBe(false);
    fail = false;
    expect(await history.flush()).toBe(true);
    const values = Object.values(await stored()) as Array<{ calls: number }>;
    expect(values.map((v) => v.calls)).toEqual([1, 1]);
  });

  it('sends names past the per-hour limit to (other), and never shrinks a bucket when the wall clock steps back', async () => {
    const history = new RouteHistory({ store, clock, writer: 'reg-a-1', maxCapabilities: 2 });
    for (const capability of ['a', 'b', 'c', 'd']) history.routed(capability);
    await history.flush();
    const names = Object.keys(await stored()).map((key) => key.split('/').at(-2));
    expect(names.sort()).toEqual(['(other)', 'a', 'b'].sort());
    expect(OVERFLOW).toBe('(other)');

    let wall = START + 120_000; // 11:01
    const stepping = new RouteHistory({
      store,
      clock: { wallNow: () => wall, every: () => () => {} },
      writer: 'reg-z-9',
    });
    stepping.routed('x');
    wall = START; // stepped back to 10:59
    stepping.routed('x');
    await stepping.flush();
    expect((await stored())['/reach/governance/routes/2026-03-10/11/x/reg-z-9']).toMatchObject({ routes: 2 });
  });

  it('collects days past the retention when it leads, and flushes on stop', async () => {
    const history = new RouteHistory({ store, clock, writer: 'reg-a-1' });
    const old = KEYS.routeHistory(START - 40 * 24 * HOUR_MS, 'summarize', 'reg-old');
    const kept = KEYS.routeHistory(START - 29 * 24 * HOUR_MS, 'summarize', 'reg-old');
    await store.commit({
      puts: [old, kept].map((key) => ({
        key,
        value: JSON.stringify({ routes: 1, calls: 0, hits: 0, fallbacks: 0, failures: 0 }),
      })),
    });
    let leads = false;
    const stop = history.start({ flushMs: 1_000, retentionMs: 30 * 24 * HOUR_MS, isLeader: () => leads });
    await settle();
    expect(Object.keys(await stored())).toContain(old);
    leads = true;
    clock.advance(HOUR_MS);
    await settle(6);
    expect(Object.keys(await stored())).toEqual([kept]);
    history.routed('summarize');
    await stop();
    expect(Object.keys(await stored())).toHaveLength(2);
  });
});

describe('the route history of two registry replicas on one store', () => {
  const replicas: Registry[] = [];
  afterEach(async () => {
    for (const registry of replicas.splice(0)) await registry.close();
  });

  it('routes and outcomes on either replica reach the report of both after a flush', async () => {
    const replica = async (name: string) => {
      const registry = await createRegistry({
        config: registryConfigFrom({ control_plane: { governance: { flush_interval: '10s' } } }),
        store,
        clock,
        logger: captureLogger().logger,
        replicaId: name,
      });
      replicas.push(registry);
      return registry;
    };
    const a = await replica('reg-a');
    const b = await replica('reg-b');
    const registered = await call(a.app, 'POST', '/v1/agents', registerBody(9100));
    expect(registered.status).toBe(201);
    const id = registered.body.instance_id as string;
    await settle(6);
    for (const app of [a.app, a.app, b.app]) {
      expect((await call(app, 'POST', '/v1/route', { operation: 'summarize' })).status).toBe(200);
    }
    const outcome = (n: number, extra: Record<string, unknown>) => ({
      instance_id: id,
      request_id: `r${n}`,
      latency_ms: 12,
      ...extra,
    });
    const toA = await call(a.app, 'POST', '/v1/outcomes', {
      outcomes: [
        outcome(1, { operation: 'summarize', ok: true, final: true }),
        outcome(2, { operation: 'summarize', ok: false, failure: 'connect', final: false }),
        outcome(2, { operation: 'summarize', ok: true, attempt: 2, fallback: true, final: true }),
      ],
    });
    expect(toA.body).toMatchObject({ accepted: 3 });
    // No operation named: the instance declares one, so the call is its.
    await call(b.app, 'POST', '/v1/outcomes', {
      outcomes: [outcome(3, { ok: false, failure: 'execution_timeout', final: true })],
    });
    const summarize = async (registry: Registry) => {
      const reply = await call(registry.app, 'GET', '/v1/reports/governance?window=1h');
      expect(reply.status).toBe(200);
      return (reply.body as GovernanceReport).capabilities.find((c) => c.capability === 'summarize');
    };
    // Each replica sees its own counts at once, the other's after its flush.
    expect(await summarize(a)).toMatchObject({ routes: 2, calls: 2 });
    expect(await summarize(b)).toMatchObject({ routes: 1, calls: 1 });
    for (let moved = 0; moved < 10_000; moved += 500) {
      clock.advance(500);
      await settle(6);
    }
    await settle(20);
    const expected = { routes: 3, calls: 3, hits: 1, fallbacks: 1, failures: 1, hit_rate: 0.3333 };
    expect(await summarize(a)).toMatchObject(expected);
    expect(await summarize(b)).toMatchObject(expected);
    // The registered version is live and not verified yet (its successful call counts toward it).
    const report = (await call(a.app, 'GET', '/v1/reports/governance?window=1h')).body as GovernanceReport;
    expect(report.unverified_versions).toMatchObject([
      { agent_name: 'summarizer-v2', version: '1', live_instances: 1, newest: true },
    ]);
    expect(report.declaration_changes).toMatchObject([
      { agent_name: 'summarizer-v2', version: '1', previous_version: null, verified: false },
    ]);
    const keys = (await store.list(KEYS.routeHistoryPrefix)).map(({ key }) => key);
    expect(keys).toHaveLength(2);
    expect(keys.every((key) => /\/summarize\/reg-[ab]-[0-9a-f]{6}$/.test(key))).toBe(true);
  });
});
