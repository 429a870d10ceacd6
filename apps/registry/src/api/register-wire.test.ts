import { describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { useServedRegistry } from '../testing/served-registry.js';

const served = useServedRegistry({
  max_body_bytes: 4096,
  tokens: [
    { name: 'text', token: 'text-token-1', capabilities: ['summarize'] },
    { name: 'admin', token: 'admin-token-1', capabilities: ['*'] },
  ],
});

interface Reply {
  status: number;
  type: string | null;
  body: Record<string, unknown>;
}

// Ids and lease tokens are random per registration, so a 201 is compared by its shape.
async function reply(response: Response): Promise<Reply> {
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status === 201) {
    expect(body.instance_id).toMatch(/^[a-z0-9-]+-[0-9a-f]{4,8}$/);
    expect(body.lease_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    body.instance_id = '<id>';
    body.lease_token = '<token>';
  }
  return { status: response.status, type: response.headers.get('content-type'), body };
}

const admin = { authorization: 'Bearer admin-token-1' };
const init = (body: string, headers: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers },
  body,
});
const viaWire = async (path: string, body: string, headers: Record<string, string> = admin) =>
  reply(await fetch(`${served().running.url}${path}`, init(body, headers)));
const viaHono = async (path: string, body: string, headers: Record<string, string> = admin) =>
  reply(await served().running.app.request(path, init(body, headers)));

const good = JSON.stringify(registerBody(8001));
const withPort = (port: unknown) => {
  const body = registerBody(8001) as unknown as { endpoint: { port: unknown } };
  body.endpoint.port = port;
  return JSON.stringify(body);
};
const serving = (capability: string) => {
  const body = registerBody(8001);
  body.declaration.capabilities = { summarize: { serves: [capability] } };
  return JSON.stringify(body);
};

describe('POST /v1/agents on the wire (hono on @hono/node-server)', () => {
  it('answers good and bad registrations exactly as the hono route does', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      ['/v1/agents', good, admin],
      ['/v1/agents?x=1', good, { authorization: 'Bearer text-token-1' }],
      ['/v1/agents', good, {}],
      ['/v1/agents', good, { authorization: 'Bearer nobody' }],
      ['/v1/agents', serving('no_such_capability'), admin],
      ['/v1/agents', withPort('8001'), admin],
      ['/v1/agents', '{"declaration": ', admin],
      ['/v1/agents', '', admin],
      ['/v1/agents', '[1,2]', admin],
      ['/v1/agents', JSON.stringify({ ...registerBody(8001), pad: 'x'.repeat(5000) }), admin],
    ];
    const seen: Array<[number, unknown]> = [];
    for (const [path, body, headers] of cases) {
      const wire = await viaWire(path, body, headers);
      expect(wire).toEqual(await viaHono(path, body, headers));
      seen.push([wire.status, wire.body.code ?? wire.body.declaration_version]);
    }
    expect(seen).toEqual([
      [201, '1'],
      [403, 'FORBIDDEN'],
      [401, 'UNAUTHORIZED'],
      [401, 'UNAUTHORIZED'],
      [422, 'UNKNOWN_CAPABILITY'],
      [400, 'VALIDATION_FAILED'],
      [400, 'INVALID_JSON'],
      [400, 'INVALID_JSON'],
      [400, 'VALIDATION_FAILED'],
      [413, 'PAYLOAD_TOO_LARGE'],
    ]);
    // One registration each way (wire and hono); nothing stored for the refused ones.
    expect(await served().store.list('/reach/instances/')).toHaveLength(2);
    const metrics = await (await fetch(`${served().running.url}/metrics`)).text();
    expect(metrics).toContain(
      'reach_registry_http_requests_total{method="POST",route="/v1/agents",status="201"} 2',
    );
    expect(metrics).toContain(
      'reach_registry_http_requests_total{method="POST",route="/v1/agents",status="413"} 2',
    );
  });

  it('stores what it answers: the new instance is listed and takes heartbeats', async () => {
    const response = await fetch(`${served().running.url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...admin },
      body: good,
    });
    expect(response.status).toBe(201);
    const { instance_id, lease_token } = (await response.json()) as Record<string, string>;
    expect(await served().store.get(`/reach/instances/${instance_id}`)).not.toBeNull();
    const beat = await fetch(`${served().running.url}/v1/agents/${instance_id}/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${lease_token}` },
      body: '{"seq":1}',
    });
    expect(beat.status).toBe(200);
    const other = await fetch(`${served().running.url}/v1/agents/`, { method: 'POST', body: good });
    expect(other.status).toBe(404);
  });
});
