import { DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';
import { collectSse } from '@agent-reach/sdk/testing';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Candidate, type Discovery, type DiscoveryView, LiveCatalog } from '../discovery/index.js';
import type { CallAttempt } from '../execution/index.js';
import { Orchestrator } from '../orchestrator.js';
import { Planner } from '../planner/index.js';
import { openPgliteTraceStore } from '../traces/open-pglite.js';
import type { TraceStore } from '../traces/trace-store.js';
import { createApp } from './app.js';
import { OrchestratorMetrics } from './metrics.js';

const TOKEN = 'secret-token-123';

function candidate(cap: string): Candidate {
  return {
    instance: `${cap}-1`,
    agent_name: `${cap}-agent`,
    endpoint: '127.0.0.1:1',
    target: `${cap}-1.agents.internal`,
    address: '127.0.0.1',
    port: 1,
    priority: 1,
    weight: 1,
    health: 'healthy',
    card_version: '1',
    card_sha256: 'x'.repeat(43),
    capability_ids: [cap],
    idempotent: true,
    baseUrl: 'http://127.0.0.1:1',
    card: {} as Candidate['card'],
  };
}

const view: DiscoveryView = {
  zone: 'agents.internal',
  dns_server: '127.0.0.1:53',
  discovered_at: new Date().toISOString(),
  duration_ms: 1,
  strategy: 'priority_then_weighted_random',
  capabilities: Object.fromEntries(
    DEFAULT_CATALOG.map((cap) => [
      cap,
      {
        capability: cap,
        source: 'svcb',
        available: true,
        reason: null,
        queries: [],
        candidates: [],
        failed: [],
        description: `${cap} text`,
        described_by: 'builtin' as const,
        tags: [],
        examples: [],
        builtin: true,
        in_index: true,
        providers: [`${cap}-agent`],
      },
    ]),
  ),
  stats: {
    dns_queries: 7,
    dns_tcp_fallbacks: 0,
    card_fetches: 0,
    card_cache_hits: 0,
    card_negative_hits: 0,
    card_failures: 0,
    health_probes: 0,
  },
  totals: {
    dns_queries: 7,
    dns_tcp_fallbacks: 0,
    card_fetches: 0,
    card_cache_hits: 0,
    card_negative_hits: 0,
    card_failures: 0,
    health_probes: 0,
  },
};
const discovery: Discovery = {
  view,
  candidates: new Map(DEFAULT_CATALOG.map((cap) => [cap, [candidate(cap)]])),
  catalog: LiveCatalog.plannable(view.capabilities),
};

describe('orchestrator API', () => {
  let store: TraceStore;
  let gate: Promise<void> = Promise.resolve();
  const call: CallAttempt = async (_target, request, { signal }) => {
    const stopped = new Promise<'stopped'>((resolve) =>
      signal?.addEventListener('abort', () => resolve('stopped')),
    );
    if ((await Promise.race([gate, stopped])) === 'stopped') {
      return {
        ok: false,
        failure: 'cancelled',
        code: 'CANCELLED',
        message: 'stopped',
        acked: true,
        retryable: false,
        ms: 1,
      };
    }
    return { ok: true, output: { text: `${request.capability} says ok` }, ms: 1 };
  };
  let app: ReturnType<typeof createApp>;
  let open: ReturnType<typeof createApp>;

  beforeAll(async () => {
    store = await openPgliteTraceStore();
    const orchestrator = new Orchestrator({
      store,
      index: {
        discover: async () => discovery,
        bind: (d, cap) => ({
          ok: true,
          capability: cap,
          primary: d.candidates.get(cap)![0]!,
          alternates: [],
          selection: {
            strategy: 'priority_then_weighted_random',
            priority: 1,
            weight: 1,
            pool: 1,
            source: 'svcb',
          },
        }),
      },
      planner: new Planner({ providers: [] }),
      call,
      tracer: trace.getTracer('test'),
      providers: ['known'],
    });
    const metrics = new OrchestratorMetrics();
    app = createApp({
      orchestrator,
      store,
      metrics,
      apiToken: TOKEN,
      maxBodyBytes: 4096,
      sse: { keepAliveMs: 50 },
    });
    open = createApp({ orchestrator, store, metrics, apiToken: null });
  }, 120_000);
  afterAll(() => store.close());

  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const start = async (text = '设计一份生日派对策划') => {
    const res = await app.request('/api/start', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ text }),
    });
    expect(res.status).toBe(202);
    return (await res.json()) as { trace_id: string; status: string };
  };

  it('starts a run at once and streams every event until done', async () => {
    const started = await start();
    expect(started.status).toBe('started');
    expect(started.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const res = await app.request(`/api/stream/${started.trace_id}`);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const messages = await collectSse(res.body!);
    const events = messages.filter((m) => m.event === 'message').map((m) => JSON.parse(m.data));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0].type).toBe('trace_started');
    expect(events.at(-1).type).toBe('trace_finished');
    expect(messages.at(-1)).toMatchObject({ event: 'done' });

    const detail = (await (await app.request(`/api/traces/${started.trace_id}`)).json()) as {
      trace: { status: string; summary: string };
      plan: { normalized: { nodes: unknown[] } };
      nodes: Array<{ status: string; input_context: string | null }>;
      events: unknown[];
    };
    expect(detail.trace.status).toBe('ok');
    expect(detail.plan.normalized.nodes.length).toBe(detail.nodes.length);
    expect(detail.nodes.every((n) => n.status === 'succeeded' && n.input_context !== null)).toBe(true);
    expect(detail.events.length).toBe(events.length);
    expect(detail.trace.summary).toContain('synthesis says ok');
  });

  it('replays from Last-Event-ID without losing an event', async () => {
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const { trace_id } = await start('设计一个用户下线接口');
    const first = await collectSse(
      (await app.request(`/api/stream/${trace_id}`)).body!,
      (_m, all) => all.length >= 3,
    );
    const lastId = first.at(-1)!.id!;
    release();
    const rest = await collectSse(
      (await app.request(`/api/stream/${trace_id}`, { headers: { 'last-event-id': lastId } })).body!,
    );
    const seqs = [...first, ...rest].filter((m) => m.event === 'message').map((m) => Number(m.id));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(rest.at(-1)!.event).toBe('done');
    const after = await collectSse((await app.request(`/api/stream/${trace_id}?after=${seqs.at(-1)}`)).body!);
    expect(after.map((m) => m.event)).toEqual(['done']);
    gate = Promise.resolve();
  });

  it('runs synchronously on /api/run', async () => {
    const res = await app.request('/api/run', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ task: 'Plan a team offsite' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; nodes: unknown[] };
    expect(body.status).toBe('ok');
    expect(body.nodes.length).toBeGreaterThan(0);
  });

  it('lists, filters and pages traces, and deletes one', async () => {
    const page = (await (await app.request('/api/traces?limit=1&status=ok')).json()) as {
      items: Array<{ id: string }>;
      next_cursor: string;
    };
    expect(page.items).toHaveLength(1);
    const next = (await (
      await app.request(`/api/traces?limit=1&status=ok&cursor=${page.next_cursor}`)
    ).json()) as { items: Array<{ id: string }> };
    expect(next.items[0]!.id).not.toBe(page.items[0]!.id);
    const id = page.items[0]!.id;
    expect((await app.request(`/api/traces/${id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    expect((await app.request(`/api/traces/${id}`)).status).toBe(404);
  });

  it('stops a running trace when it is deleted', async () => {
    gate = new Promise(() => {});
    const { trace_id } = await start();
    await new Promise((r) => setTimeout(r, 50));
    const res = await app.request(`/api/traces/${trace_id}`, { method: 'DELETE', headers: auth });
    expect(res.status).toBe(200);
    expect((await app.request(`/api/traces/${trace_id}`)).status).toBe(404);
    gate = Promise.resolve();
  }, 10_000);

  const row = (method: string, path: string, body: string | null, status: number, code: string) => ({
    method,
    path,
    body,
    status,
    code,
  });
  it.each([
    row('POST', '/api/start', 'not json', 400, 'INVALID_JSON'),
    row('POST', '/api/start', '', 400, 'INVALID_JSON'),
    row('POST', '/api/start', '{}', 400, 'VALIDATION_FAILED'),
    row('POST', '/api/start', '{"text":"   "}', 400, 'VALIDATION_FAILED'),
    row('POST', '/api/start', '{"text":"x","extra":1}', 400, 'VALIDATION_FAILED'),
    row('POST', '/api/start', '{"text":"x","provider":"nope"}', 400, 'VALIDATION_FAILED'),
    row('POST', '/api/start', JSON.stringify({ text: 'x'.repeat(5000) }), 413, 'PAYLOAD_TOO_LARGE'),
    row('POST', '/api/run', '[]', 400, 'VALIDATION_FAILED'),
    row('GET', '/api/stream/nothex', null, 400, 'VALIDATION_FAILED'),
    row('GET', `/api/stream/${'a'.repeat(32)}`, null, 404, 'NOT_FOUND'),
    row('GET', `/api/stream/${'a'.repeat(32)}?after=-1`, null, 400, 'VALIDATION_FAILED'),
    row('GET', '/api/traces?status=weird', null, 400, 'VALIDATION_FAILED'),
    row('GET', '/api/traces?limit=0', null, 400, 'VALIDATION_FAILED'),
    row('GET', '/api/traces?cursor=garbage', null, 400, 'BAD_REQUEST'),
    row('GET', '/api/traces?since=yesterday', null, 400, 'VALIDATION_FAILED'),
    row('GET', '/api/traces/XYZ', null, 400, 'VALIDATION_FAILED'),
    row('GET', `/api/traces/${'0'.repeat(32)}`, null, 400, 'VALIDATION_FAILED'),
    row('GET', `/api/traces/${'b'.repeat(32)}`, null, 404, 'NOT_FOUND'),
    row('DELETE', '/api/traces/nope', null, 400, 'VALIDATION_FAILED'),
    row('DELETE', `/api/traces/${'b'.repeat(32)}`, null, 404, 'NOT_FOUND'),
    row('GET', '/api/nothing', null, 404, 'NOT_FOUND'),
    row('PUT', '/api/start', '{}', 404, 'NOT_FOUND'),
  ])('$method $path → $status $code', async ({ method, path, body, status, code }) => {
    const res = await app.request(path, { method, headers: auth, ...(body === null ? {} : { body }) });
    expect(res.status).toBe(status);
    const json = (await res.json()) as { code: string; message: string; requestId: string };
    expect(json.code).toBe(code);
    expect(json.message.length).toBeGreaterThan(0);
    expect(json.requestId).toBeTruthy();
  });

  it('needs the bearer token on mutating routes only', async () => {
    const noAuth = await app.request('/api/start', { method: 'POST', body: '{"text":"x"}' });
    expect(noAuth.status).toBe(401);
    expect(((await noAuth.json()) as { code: string }).code).toBe('UNAUTHORIZED');
    const wrong = await app.request(`/api/traces/${'c'.repeat(32)}`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer wrong' },
    });
    expect(wrong.status).toBe(401);
    expect((await app.request('/api/traces')).status).toBe(200);
    expect((await open.request('/api/start', { method: 'POST', body: '{"text":"x"}' })).status).toBe(202);
  });

  it('serves discovery, probes and metrics', async () => {
    expect(((await (await app.request('/api/discovery')).json()) as DiscoveryView).stats.dns_queries).toBe(7);
    expect(await (await app.request('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await app.request('/readyz')).status).toBe(200);
    const metrics = await (await app.request('/metrics')).text();
    expect(metrics).toContain('reach_orchestrator_runs_started_total');
  });
});
