import { beforeEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { useServedRegistry } from '../testing/served-registry.js';

const served = useServedRegistry({ max_body_bytes: 4096 });
beforeEach(async () => {
  for (const [port, agent] of [
    [8001, 'summarizer-v2'],
    [8002, 'summarizer-v2'],
    [8003, 'digest-bot'],
  ] as const) {
    const reg = await served().running.app.request('/v1/agents', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registerBody(port, { agent_name: agent, priority: port === 8003 ? 40 : 80 })),
    });
    expect(reg.status).toBe(201);
  }
  // Routing learns of registrations through the store's watch: wait until it has all three.
  const ask = () =>
    served().running.app.request('/v1/route', { method: 'POST', body: '{"operation":"summarize"}' });
  await expect
    .poll(async () => ((await (await ask()).json()) as { candidates: unknown[] }).candidates.length)
    .toBe(3);
});

interface Reply {
  status: number;
  type: string | null;
  body: { candidates?: Array<{ instance_id: string }>; [key: string]: unknown };
}

// The order is a per-request weighted draw, so candidates are compared as a set (sorted by id).
async function reply(response: Response): Promise<Reply> {
  const body = (await response.json()) as Reply['body'];
  body.candidates?.sort((a, b) => a.instance_id.localeCompare(b.instance_id));
  return { status: response.status, type: response.headers.get('content-type'), body };
}

const headers = { 'content-type': 'application/json', 'x-request-id': 'req-1' };
const viaWire = async (path: string, body: string, extra: Record<string, string> = {}) =>
  reply(
    await fetch(`${served().running.url}${path}`, {
      method: 'POST',
      headers: { ...headers, ...extra },
      body,
    }),
  );
const viaHono = async (path: string, body: string, extra: Record<string, string> = {}) =>
  reply(
    await served().running.app.request(path, { method: 'POST', headers: { ...headers, ...extra }, body }),
  );

describe('POST /v1/route on the node:http fast path', () => {
  it('answers good and bad queries exactly as the hono route does', async () => {
    const cases: Array<[string, string]> = [
      ['/v1/route', '{"operation":"summarize"}'],
      ['/v1/route', '{"operation":"writing","max_candidates":2}'],
      ['/v1/route', '{"operation":"summarize","constraints":{"input_size":9000}}'],
      ['/v1/route', '{"operation":"summarize","exclude":["digest-bot"],"domain":"text_processing"}'],
      ['/v1/route?trace=1', '{"operation":"summarize","max_candidates":1}'],
      ['/v1/route', '{"operation":"nobody_offers_this"}'],
      ['/v1/route', '{"operation":"summarize","max_candidates":0}'],
      ['/v1/route', '{"operation":"summarize","surprise":true}'],
      ['/v1/route', '{"operation":'],
      ['/v1/route', ''],
      ['/v1/route', '[]'],
      ['/v1/route', JSON.stringify({ operation: 'summarize', exclude: ['x'.repeat(5000)] })],
    ];
    const seen: Array<[number, unknown]> = [];
    for (const [path, body] of cases) {
      await viaHono(path, body); // warm the cache, so both sides below answer from it
      const wire = await viaWire(path, body);
      const hono = await viaHono(path, body);
      const query = wire.status === 200 ? (JSON.parse(body) as { max_candidates?: number }) : {};
      if (query.max_candidates !== undefined) {
        // A truncated answer is a weighted draw: each side's picks come from the same cached answer.
        const all = await viaHono(path, JSON.stringify({ ...query, max_candidates: 20 }));
        for (const side of [wire, hono]) {
          for (const candidate of side.body.candidates ?? [])
            expect(all.body.candidates).toContainEqual(candidate);
          expect(side.body.candidates).toHaveLength(query.max_candidates);
        }
        expect({ ...wire, body: { ...wire.body, candidates: [] } }).toEqual({
          ...hono,
          body: { ...hono.body, candidates: [] },
        });
      } else expect(wire).toEqual(hono);
      seen.push([wire.status, wire.body.code ?? wire.body.candidates?.length]);
    }
    expect(seen).toEqual([
      [200, 3],
      [200, 2],
      [200, 0],
      [200, 2],
      [200, 1],
      [200, 0],
      [400, 'VALIDATION_FAILED'],
      [400, 'VALIDATION_FAILED'],
      [400, 'INVALID_JSON'],
      [400, 'INVALID_JSON'],
      [400, 'VALIDATION_FAILED'],
      [413, 'PAYLOAD_TOO_LARGE'],
    ]);
    // One 413 on the fast path, two through hono: both count under the same route label.
    const metrics = await (await fetch(`${served().running.url}/metrics`)).text();
    expect(metrics).toContain(
      'reach_registry_http_requests_total{method="POST",route="/v1/route",status="413"} 3',
    );
  });

  it('says cached:false on a miss and true on a repeat, and leaves other methods to hono', async () => {
    const body = '{"operation":"summarize","constraints":{"input_size":7}}';
    expect((await viaWire('/v1/route', body)).body.cached).toBe(false);
    expect((await viaWire('/v1/route', body)).body.cached).toBe(true);
    const get = await fetch(`${served().running.url}/v1/route`);
    expect([get.status, ((await get.json()) as { code: string }).code]).toEqual([404, 'NOT_FOUND']);
  });
});
