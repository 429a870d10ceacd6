// The `reach` CLI under test: a fake fetch answering by `METHOD path`, output collected per stream.
import { cli } from '../cli/cli.js';

interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: string | null;
}

export type Reply = Response | (() => Response);

/** A fake fetch: answers by `METHOD url-path` and records every call. */
export function fakeFetch(routes: Record<string, Reply | Reply[]>) {
  const calls: Call[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const method = init.method ?? 'GET';
    calls.push({
      url: String(input),
      method,
      headers: new Headers(init.headers),
      body: (init.body as string) ?? null,
    });
    const route = routes[`${method} ${url.pathname}${url.search}`] ?? routes[`${method} ${url.pathname}`];
    const reply = Array.isArray(route) ? route.shift() : route;
    if (reply === undefined) throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    return typeof reply === 'function' ? reply() : reply;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
export const sse = (text: string) => () =>
  new Response(text, { headers: { 'content-type': 'text/event-stream' } });

export const ENV = {
  REACH_REGISTRY_URL: 'http://registry.test:8701',
  REACH_ORCHESTRATOR_URL: 'http://orch.test:8702',
};
export const TRACE = 'ab'.repeat(16);

export async function run(
  argv: string[],
  routes: Record<string, Reply | Reply[]> = {},
  env: Record<string, string> = ENV,
) {
  const { fetch, calls } = fakeFetch(routes);
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(argv, env, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    fetch,
    now: () => Date.parse('2026-01-01T00:00:10Z'),
    watch: { reconnectDelayMs: 1 },
  });
  return { code, out: out.join('\n'), err: err.join('\n'), calls };
}

export const traceDetail = (status: string) => ({
  trace: {
    id: TRACE,
    task: 'write a plan',
    status,
    started_at: '2026-01-01T00:00:01.000Z',
    finished_at: '2026-01-01T00:00:01.040Z',
    duration_ms: 40,
    summary: status === 'ok' ? 'the plan' : null,
    error: status === 'ok' ? null : 'n1 failed',
    last_seq: 4,
  },
  plan: { levels: [['n1']], warnings: [], degraded: false, provider: null },
  nodes: [
    {
      node_id: 'n1',
      capability: 'planning',
      depends_on: [],
      layer: 0,
      purpose: null,
      status: status === 'ok' ? 'succeeded' : 'failed',
      agent: null,
      instance_id: null,
      attempts: 1,
      duration_ms: 40,
      output_chars: null,
      input_context: null,
      output: null,
      error: null,
    },
  ],
  events: [],
});

export const event = (seq: number, type: string, data: Record<string, unknown>) =>
  `id: ${seq}\ndata: ${JSON.stringify({ trace_id: TRACE, seq, type, at: '2026-01-01T00:00:01.000Z', data })}\n\n`;
