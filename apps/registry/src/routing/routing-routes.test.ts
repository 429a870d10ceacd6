import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConflictView, RouteResponse, RoutingStats } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { Hono } from 'hono';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createErrorHandler } from '../http/index.js';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { FakeInstanceSource } from '../testing/fake-instance-source.js';
import { testInstance } from '../testing/routing-instances.js';
import { ConflictReporter } from './conflict-report.js';
import { Router } from './router.js';
import { createRoutingRoutes } from './routing-routes.js';

let dir: string;
let store: EmbeddedStore;
let router: Router;
let source: FakeInstanceSource;
let app: Hono;
let reporter: ConflictReporter;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-routes-'));
  store = await openEmbeddedStore({ path: dir });
  source = new FakeInstanceSource();
  const clock = new ManualClock();
  router = new Router({ source, clock });
  reporter = new ConflictReporter({ book: router.conflicts, store, clock, isLeader: () => true });
  app = new Hono();
  app.route('/', createRoutingRoutes({ router, reporter }));
  app.onError(createErrorHandler(pino({ level: 'silent' })));
});
afterEach(async () => {
  router.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown) =>
  app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('POST /v1/route', () => {
  it('answers a need with ranked candidates', async () => {
    source.put(testInstance('summarizer-1', { agent: 'summarizer' }));
    const res = await post('/v1/route', {
      operation: 'summarize',
      constraints: { input_size: 5000, max_latency_sec: 2 },
    });
    expect(res.status).toBe(200);
    const body = RouteResponse.parse(await res.json());
    expect(body.candidates.map((c) => c.instance_id)).toEqual(['summarizer-1']);
    expect(body.cached).toBe(false);
  });

  it.each([
    ['not JSON', '{nope', 'INVALID_JSON'],
    ['an empty body', '', 'INVALID_JSON'],
    ['no operation', { domain: 'x' }, 'VALIDATION_FAILED'],
    ['a bad operation id', { operation: 'Sum Marize' }, 'VALIDATION_FAILED'],
    ['an unknown field', { operation: 'summarize', priority: 1 }, 'VALIDATION_FAILED'],
    [
      'a negative input size',
      { operation: 'summarize', constraints: { input_size: -1 } },
      'VALIDATION_FAILED',
    ],
    ['too many candidates', { operation: 'summarize', max_candidates: 1000 }, 'VALIDATION_FAILED'],
  ])('rejects %s with 400 and a code', async (_what, body, code) => {
    const res = await post('/v1/route', body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code });
  });
});

describe('POST /v1/outcomes', () => {
  it('accepts a batch with 202', async () => {
    source.put(testInstance('summarizer-1', { agent: 'summarizer' }));
    const res = await post('/v1/outcomes', {
      outcomes: [
        { instance_id: 'summarizer-1', request_id: 'r1', ok: false, failure: 'overloaded', latency_ms: 3 },
      ],
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: 1, ignored: 0 });
  });

  it.each([
    ['an empty batch', { outcomes: [] }],
    [
      'a failure without a class',
      { outcomes: [{ instance_id: 'a', request_id: 'r', ok: false, latency_ms: 1 }] },
    ],
    [
      'a class on a success',
      { outcomes: [{ instance_id: 'a', request_id: 'r', ok: true, failure: 'connect', latency_ms: 1 }] },
    ],
    [
      'an unknown class',
      { outcomes: [{ instance_id: 'a', request_id: 'r', ok: false, failure: 'gremlins', latency_ms: 1 }] },
    ],
    ['a negative latency', { outcomes: [{ instance_id: 'a', request_id: 'r', ok: true, latency_ms: -1 }] }],
    ['not a batch', [1, 2, 3]],
  ])('rejects %s with 400 VALIDATION_FAILED', async (_what, body) => {
    const res = await post('/v1/outcomes', body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('GET /v1/conflicts and /v1/routing/stats', () => {
  it('lists live conflicts and serves the daily report', async () => {
    source.put(testInstance('alpha-1'), testInstance('beta-1'));
    const live = await app.request('/v1/conflicts');
    const body = (await live.json()) as { conflicts: unknown[] };
    expect(body.conflicts.map((c) => ConflictView.parse(c).agents)).toEqual([['alpha', 'beta']]);
    const missing = await app.request('/v1/conflicts?report=daily');
    expect(missing.status).toBe(404);
    await reporter.update();
    const daily = await app.request(`/v1/conflicts?report=daily&date=${reporter.today()}`);
    expect(daily.status).toBe(200);
    expect(((await daily.json()) as { conflicts: unknown[] }).conflicts).toHaveLength(1);
    expect((await app.request('/v1/conflicts?report=weekly')).status).toBe(400);
    expect((await app.request('/v1/conflicts?report=daily&date=yesterday')).status).toBe(400);
  });

  it('serves the routing stats', async () => {
    source.put(testInstance('summarizer-1', { agent: 'summarizer' }));
    await post('/v1/route', { operation: 'summarize' });
    const res = await app.request('/v1/routing/stats');
    const stats = RoutingStats.parse(await res.json());
    expect(stats.routes.total).toBe(1);
    expect(stats.instances.map((i) => i.instance_id)).toEqual(['summarizer-1']);
  });
});
