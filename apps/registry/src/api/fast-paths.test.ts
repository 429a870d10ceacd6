import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer } from '../testing/http.js';
import { useServedRegistry } from '../testing/served-registry.js';

// The seam's promise (api/fast-paths.ts): each middleware concern behaves the same whether the node:http
// fast path or hono answers. Two registries, one with the seam and one without, get the same requests.
// (Registrations went back to hono on both; their row keeps it so if a fast path for them returns.)
const MAX_BODY = 4096;
const control = {
  max_body_bytes: MAX_BODY,
  tokens: [{ name: 'admin', token: 'admin-token-1', capabilities: ['*'] }],
};
const paths = { 'fast path': useServedRegistry(control, true), hono: useServedRegistry(control, false) };
type Via = keyof typeof paths;

interface Answer {
  status: number;
  code: string | undefined;
}

/** Sends one POST on the wire; `chunked` leaves the Content-Length out (transfer-encoding chunked). */
function post(via: Via, path: string, body: string, headers: Record<string, string>, chunked = false) {
  return new Promise<Answer>((resolve, reject) => {
    const length = chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request(`${paths[via]().running.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...length, ...headers },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      res.on('end', () => {
        const parsed = JSON.parse(text) as { code?: string };
        resolve({ status: res.statusCode ?? 0, code: parsed.code });
      });
    });
    req.on('error', reject);
    if (chunked) for (let at = 0; at < body.length; at += 1000) req.write(body.slice(at, at + 1000));
    else req.write(body);
    req.end();
  });
}

/** `reach_registry_http_requests_total` of one route, by status. */
async function counted(via: Via, route: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${paths[via]().running.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m =
      /^reach_registry_http_requests_total\{method="POST",route="([^"]+)",status="(\d+)"\} (\d+)$/.exec(line);
    if (m && m[1] === route) out[m[2]!] = Number(m[3]);
  }
  return out;
}

/** A registration on `via`'s registry: the heartbeat endpoint's instance and lease token. */
async function registered(via: Via): Promise<{ id: string; token: string }> {
  const response = await fetch(`${paths[via]().running.url}/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer('admin-token-1') },
    body: JSON.stringify(registerBody(8001)),
  });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { instance_id: string; lease_token: string };
  return { id: body.instance_id, token: body.lease_token };
}

const pad = 'x'.repeat(MAX_BODY);
interface Endpoint {
  route: string;
  ok: number;
  path(agent: { id: string }): string;
  body(): Record<string, unknown>;
  credentials(agent: { token: string }): Record<string, string>;
  /** Without credentials (or with wrong ones): the refusal, or null when the endpoint is open. */
  refused: { headers: Record<string, string>; answer: Answer } | null;
}

let seq = 0;
const ENDPOINTS: Record<'heartbeat' | 'route' | 'register', Endpoint> = {
  heartbeat: {
    route: '/v1/agents/:id/heartbeat',
    ok: 200,
    path: (agent) => `/v1/agents/${agent.id}/heartbeat`,
    body: () => ({ seq: ++seq }),
    credentials: (agent) => bearer(agent.token),
    refused: { headers: bearer('not-the-lease-token'), answer: { status: 401, code: 'LEASE_TOKEN_INVALID' } },
  },
  route: {
    route: '/v1/route',
    ok: 200,
    path: () => '/v1/route',
    body: () => ({ operation: 'summarize' }),
    credentials: () => ({}),
    refused: null,
  },
  register: {
    route: '/v1/agents',
    ok: 201,
    path: () => '/v1/agents',
    body: () => registerBody(8002),
    credentials: () => bearer('admin-token-1'),
    refused: { headers: {}, answer: { status: 401, code: 'UNAUTHORIZED' } },
  },
};

describe.each(Object.entries(ENDPOINTS))('%s on the fast path and through hono', (_name, endpoint) => {
  /** Runs `steps` against both registries; returns what each saw, which must be equal. */
  async function onBoth<T>(
    steps: (via: Via, agent: { id: string; token: string }) => Promise<T>,
  ): Promise<T> {
    const seen: T[] = [];
    for (const via of ['fast path', 'hono'] as const) seen.push(await steps(via, await registered(via)));
    expect(seen[0]).toEqual(seen[1]);
    return seen[0]!;
  }

  it('auth: refuses (or, on an open endpoint, serves) a caller without credentials alike', async () => {
    const seen = await onBoth(async (via, agent) => {
      const headers = endpoint.refused?.headers ?? {};
      const answer = await post(via, endpoint.path(agent), JSON.stringify(endpoint.body()), headers);
      return { answer, counted: await counted(via, endpoint.route) };
    });
    const refusal = endpoint.refused?.answer ?? { status: endpoint.ok, code: undefined };
    expect(seen.answer).toEqual(refusal);
    expect(seen.counted[String(refusal.status)]).toBe(1);
  });

  it('limits: a body over max_body_bytes is a 413, counted under the route, declared or chunked', async () => {
    const seen = await onBoth(async (via, agent) => {
      const body = JSON.stringify({ ...endpoint.body(), pad });
      const headers = endpoint.credentials(agent);
      const declared = await post(via, endpoint.path(agent), body, headers);
      const chunked = await post(via, endpoint.path(agent), body, headers, true);
      // The connection and the endpoint are still fine afterwards.
      const after = await post(via, endpoint.path(agent), JSON.stringify(endpoint.body()), headers);
      return { declared, chunked, after: after.status, counted: await counted(via, endpoint.route) };
    });
    expect(seen.declared).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(seen.chunked).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(seen.after).toBe(endpoint.ok);
    expect(seen.counted['413']).toBe(2);
    const catchAll = await onBoth(async (via) => counted(via, '/*'));
    expect(catchAll).toEqual({});
  });

  it('metrics: counts answered requests by method, route pattern and status', async () => {
    const seen = await onBoth(async (via, agent) => {
      const headers = endpoint.credentials(agent);
      for (let i = 0; i < 3; i++) {
        const answer = await post(via, endpoint.path(agent), JSON.stringify(endpoint.body()), headers);
        expect(answer.status).toBe(endpoint.ok);
      }
      const invalid = await post(via, endpoint.path(agent), '[1,2]', headers);
      return { invalid, counted: await counted(via, endpoint.route) };
    });
    expect(seen.invalid).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    // The registration that set up the heartbeat counts too on `/v1/agents`.
    const setup = endpoint.route === '/v1/agents' ? 1 : 0;
    expect(seen.counted).toEqual({ [String(endpoint.ok)]: 3 + setup, '400': 1 });
  });
});
