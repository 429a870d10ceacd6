import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { useServedRegistry } from '../testing/served-registry.js';

const served = useServedRegistry({ max_body_bytes: 4096 });

/** Sends raw chunks without a Content-Length (chunked transfer encoding). */
function chunked(path: string, chunks: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${served().running.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('the registry over HTTP', () => {
  it('decodes path ids the same way on every route and quotes at most 80 characters of a bad one', async () => {
    const url = served().running.url;
    const reg = await fetch(`${url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registerBody(8001)),
    });
    const { instance_id, lease_token } = (await reg.json()) as { instance_id: string; lease_token: string };
    // An escaped first letter: the heartbeat fast path, hono's GET and DELETE all see the same id.
    const encoded = `%${instance_id.charCodeAt(0).toString(16)}${instance_id.slice(1)}`;
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${lease_token}` };
    const beat = await fetch(`${url}/v1/agents/${encoded}/heartbeat`, {
      method: 'POST',
      headers: auth,
      body: '{"seq":1}',
    });
    expect(beat.status).toBe(200);
    const view = await fetch(`${url}/v1/agents/${encoded}`);
    expect(((await view.json()) as { instance_id: string }).instance_id).toBe(instance_id);
    const long = `Bad_${'x'.repeat(5000)}`;
    for (const [method, path] of [
      ['POST', `/v1/agents/${long}/heartbeat`],
      ['GET', `/v1/agents/${long}`],
      ['DELETE', `/v1/agents/${long}`],
      ['POST', `/v1/agents/%E0%A4%A/heartbeat`],
    ] as const) {
      const reply = await fetch(`${url}${path}`, {
        method,
        headers: auth,
        ...(method === 'POST' ? { body: '{"seq":2}' } : {}),
      });
      const body = (await reply.json()) as { code: string; message: string };
      expect([method, reply.status, body.code]).toEqual([method, 400, 'VALIDATION_FAILED']);
      expect(body.message.length).toBeLessThan(160);
    }
    const unknownRoute = await fetch(`${url}/${'y'.repeat(4000)}`);
    expect(((await unknownRoute.json()) as { message: string }).message.length).toBeLessThan(160);
  });

  it('registers and heartbeats through @hono/node-server', async () => {
    const reg = await fetch(`${served().running.url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registerBody(8001)),
    });
    expect(reg.status).toBe(201);
    const { instance_id, lease_token } = (await reg.json()) as { instance_id: string; lease_token: string };
    const beat = await fetch(`${served().running.url}/v1/agents/${instance_id}/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${lease_token}` },
      body: '{"seq":1}',
    });
    expect([beat.status, await beat.json()]).toEqual([
      200,
      { status: 'ok', state: 'healthy', heartbeat_interval_ms: 5000 },
    ]);
  });

  it('refuses a body over the limit, announced by Content-Length or sent chunked', async () => {
    const big = JSON.stringify({ ...registerBody(8001), pad: 'x'.repeat(5000) });
    const announced = await fetch(`${served().running.url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    expect(announced.status).toBe(413);
    expect(((await announced.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE');
    const streamed = await chunked('/v1/agents', [big.slice(0, 3000), big.slice(3000)]);
    expect(streamed).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
    const fine = await chunked('/v1/agents', [JSON.stringify(registerBody(8002))]);
    expect(fine.status).toBe(201);
    expect(await served().store.list('/reach/instances/')).toHaveLength(1);
  });

  it('answers heartbeats on the fast path exactly as the hono route does', async () => {
    const reg = await served().running.app.request('/v1/agents', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registerBody(8001)),
    });
    const { instance_id: id, lease_token: token } = (await reg.json()) as {
      instance_id: string;
      lease_token: string;
    };
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const cases: Array<[string, string, Record<string, string>]> = [
      [`/v1/agents/${id}/heartbeat`, '{"seq":1}', auth],
      [`/v1/agents/${id}/heartbeat`, '{"seq":1}', auth],
      [`/v1/agents/${id}/heartbeat`, '{"seq":"x"}', auth],
      [`/v1/agents/${id}/heartbeat`, '{"seq":', auth],
      [`/v1/agents/${id}/heartbeat`, '', auth],
      [`/v1/agents/${id}/heartbeat`, '{"seq":5}', { 'content-type': 'application/json' }],
      [`/v1/agents/${id}/heartbeat`, '{"seq":6}', { ...auth, authorization: 'Bearer nope' }],
      ['/v1/agents/nobody-1234/heartbeat', '{"seq":1}', auth],
      ['/v1/agents/Bad%20Id/heartbeat', '{"seq":1}', auth],
      ['/v1/agents/%E0%A4%A/heartbeat', '{"seq":1}', auth],
      [`/v1/agents/${id}/heartbeat`, JSON.stringify({ seq: 9, pad: 'x'.repeat(5000) }), auth],
      [`/v1/agents/${id}/heartbeat?x=1`, '{"seq":10}', auth],
    ];
    const wire: Array<[number, unknown]> = [];
    for (const [path, body, headers] of cases) {
      const response = await fetch(`${served().running.url}${path}`, { method: 'POST', headers, body });
      const json = (await response.json()) as { code?: string; status?: string };
      wire.push([response.status, json.code ?? json.status]);
    }
    expect(wire).toEqual([
      [200, 'ok'],
      [409, 'STALE_HEARTBEAT'],
      [400, 'VALIDATION_FAILED'],
      [400, 'INVALID_JSON'],
      [400, 'INVALID_JSON'],
      [401, 'LEASE_TOKEN_INVALID'],
      [401, 'LEASE_TOKEN_INVALID'],
      [410, 'UNKNOWN_INSTANCE'],
      [400, 'VALIDATION_FAILED'],
      [400, 'VALIDATION_FAILED'],
      [413, 'PAYLOAD_TOO_LARGE'],
      [200, 'ok'],
    ]);
    // Through hono (app.request) the same replay gets the same answer.
    const viaHono = await served().running.app.request(`/v1/agents/${id}/heartbeat`, {
      method: 'POST',
      headers: auth,
      body: '{"seq":10}',
    });
    expect(viaHono.status).toBe(409);
    const chunkedBig = await chunked(`/v1/agents/${id}/heartbeat`, [
      '{"seq":11,"pad":"',
      'x'.repeat(5000),
      '"}',
    ]);
    expect(chunkedBig).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
    const metrics = await (await fetch(`${served().running.url}/metrics`)).text();
    expect(metrics).toContain('reach_registry_heartbeats_total{outcome="accepted"} 2');
    expect(metrics).toContain(
      'reach_registry_http_requests_total{method="POST",route="/v1/agents/:id/heartbeat",status="409"} 2',
    );
    // The process is still serving after all of it.
    expect((await fetch(`${served().running.url}/healthz`)).status).toBe(200);
  });

  it('answers malformed JSON with 400 over the wire', async () => {
    const reply = await chunked('/v1/agents', ['{"declaration"']);
    expect(reply).toMatchObject({ status: 400, body: { code: 'INVALID_JSON' } });
  });
});
