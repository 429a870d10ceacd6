import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { call } from '../testing/http.js';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

let t: TestRegistry;
afterEach(async () => {
  await t.cleanup();
});

describe('GET /v1/agents filters', () => {
  it('filters by capability, agent name and state, and validates them', async () => {
    t = await startTestRegistry();
    await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    const translator = registerBody(8002, {
      agent_name: 'translator',
      domain: 'text_processing',
      capabilities: { translate: { serves: ['writing'] } },
    });
    await call(t.registry.app, 'POST', '/v1/agents', translator);
    const names = async (query: string) =>
      (
        (await call(t.registry.app, 'GET', `/v1/agents${query}`)).body.instances as Array<{
          agent_name: string;
        }>
      ).map((view) => view.agent_name);
    expect(await names('')).toHaveLength(2);
    expect(await names('?capability=translate')).toEqual(['translator']);
    expect((await names('?capability=writing')).sort()).toEqual(['summarizer-v2', 'translator']);
    expect(await names('?agent_name=summarizer-v2')).toEqual(['summarizer-v2']);
    expect(await names('?state=healthy')).toHaveLength(2);
    expect(await names('?state=suspect')).toEqual([]);
    for (const query of ['?state=dead', '?capability=Bad-Cap', '?agent_name=_x', '?other=1']) {
      const reply = await call(t.registry.app, 'GET', `/v1/agents${query}`);
      expect(reply, query).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    }
    expect(await call(t.registry.app, 'GET', '/v1/agents/nobody-1234')).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    });
  });
});

describe('probes, metrics and extra routes', () => {
  it('answers /healthz, /readyz and /metrics', async () => {
    t = await startTestRegistry();
    await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    expect(await call(t.registry.app, 'GET', '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await call(t.registry.app, 'GET', '/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { watch_primed: true, store_reachable: true } },
    });
    const metrics = await t.registry.app.request('/metrics');
    const text = await metrics.text();
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(text).toContain('reach_registry_registrations_total{result="ok"} 1');
    expect(text).toContain('reach_registry_instances{state="healthy"} 1');
    expect(text).toContain('reach_registry_leader 1');
    expect(text).toContain(
      'reach_registry_http_requests_total{method="POST",route="/v1/agents",status="201"} 1',
    );
  });

  it('is not ready once the store is gone, and never answers 5xx for an unknown route', async () => {
    t = await startTestRegistry();
    expect(await call(t.registry.app, 'GET', '/nope')).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    });
    await t.store.close();
    expect(await call(t.registry.app, 'GET', '/readyz')).toMatchObject({
      status: 503,
      body: { code: 'UNAVAILABLE', data: { checks: { store_reachable: false } } },
    });
  });

  it('mounts extra routers that share the error handler', async () => {
    t = await startTestRegistry({
      routes: (parts) => {
        const zone = new Hono();
        zone.get('/v1/zone', (c) => c.text(`instances: ${parts.instances.all().length}`));
        zone.get('/v1/boom', () => {
          throw new Error('secret detail');
        });
        return [zone];
      },
    });
    expect(await (await t.registry.app.request('/v1/zone')).text()).toBe('instances: 0');
    const boom = await call(t.registry.app, 'GET', '/v1/boom');
    expect(boom).toMatchObject({ status: 500, body: { code: 'INTERNAL', message: 'internal error' } });
    expect(JSON.stringify(boom.body)).not.toContain('secret detail');
    expect(
      t.logs.some((line) => line.msg === 'request failed' && JSON.stringify(line).includes('secret detail')),
    ).toBe(true);
  });
});
