import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { settle, startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

let t: TestRegistry;
/** The embedded store gets no SkyDNS projection unless told: these tests check it where it is written. */
const PROJECTED = { dns: { skydns_projection: 'on' as const } };

/** The SkyDNS keys of instances: all but the zone's own name-server key, written at start. */
async function instanceSkydnsKeys() {
  return (await t.store.list('/skydns/')).filter((kv) => kv.key !== '/skydns/internal/agents/dns/ns/ns');
}
afterEach(async () => {
  await t.cleanup();
});

/** Every key a registration writes: its record, its SkyDNS messages, its declaration history. */
async function storedKeys(): Promise<string[]> {
  const all = [
    ...(await t.store.list('/reach/instances/')),
    ...(await t.store.list('/reach/declarations/')),
    ...(await instanceSkydnsKeys()),
  ];
  return all.map((kv) => kv.key);
}

describe('POST /v1/agents', () => {
  beforeEach(async () => {
    t = await startTestRegistry({ config: PROJECTED });
  });

  it('registers: instance id, lease token, intervals; record, SkyDNS keys and history stored in one go', async () => {
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    expect(reply.status).toBe(201);
    const { instance_id, lease_token } = reply.body as { instance_id: string; lease_token: string };
    expect(instance_id).toMatch(/^summarizer-v2-[0-9a-f]{4}$/);
    expect(lease_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reply.body).toMatchObject({
      heartbeat_interval_ms: 5000,
      heartbeat_timeout_ms: 15000,
      declaration_version: '1',
    });
    const record = JSON.parse((await t.store.get(`/reach/instances/${instance_id}`))!);
    expect(record).toMatchObject({
      instance_id,
      agent_name: 'summarizer-v2',
      card_url: 'http://127.0.0.1:8001/.well-known/agent-card.json',
    });
    expect(JSON.stringify(record)).not.toContain(lease_token);
    const srv = await t.store.get(`/skydns/internal/agents/_tcp/_summarize/${instance_id}`);
    expect(JSON.parse(srv!)).toEqual({
      host: `${instance_id}.agents.internal`,
      port: 8001,
      priority: 10,
      weight: 80,
      ttl: 15,
    });
    expect(JSON.parse((await t.store.get(`/skydns/internal/agents/${instance_id}`))!)).toEqual({
      host: '127.0.0.1',
      ttl: 15,
    });
    expect(await t.store.get(`/skydns/internal/agents/_tcp/_agent/${instance_id}`)).not.toBeNull();
    // CoreDNS's apex NS: written at start, outside any lease, naming the DNS server callers use.
    expect(JSON.parse((await t.store.get('/skydns/internal/agents/dns/ns/ns'))!)).toEqual({
      host: '127.0.0.1',
      ttl: 15,
    });
    expect(await t.store.list('/reach/declarations/summarizer-v2/')).toHaveLength(1);

    const listed = await call(t.registry.app, 'GET', '/v1/agents');
    expect(listed.body.instances).toMatchObject([
      {
        instance_id,
        state: 'healthy',
        capabilities: ['summarize', 'writing'],
        last_heartbeat_at: null,
        last_seq: 0,
      },
    ]);
    const one = await call(t.registry.app, 'GET', `/v1/agents/${instance_id}`);
    expect(one.body).toMatchObject({ instance_id, domain: 'text_processing', priority: 80 });
  });

  it('gives every registration its own id and lease', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(9000 + i));
      ids.add(reply.body.instance_id as string);
    }
    expect(ids.size).toBe(20);
    expect(await t.store.list('/reach/instances/')).toHaveLength(20);
  });

  it('keeps declaration history with change reasons, one entry per new version', async () => {
    await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    await call(t.registry.app, 'POST', '/v1/agents', registerBody(8002));
    const v2 = registerBody(8003, { version: '2', change_reason: 'longer inputs', priority: 90 });
    expect((await call(t.registry.app, 'POST', '/v1/agents', v2)).status).toBe(201);
    await call(t.registry.app, 'POST', '/v1/agents', registerBody(8004, { version: '2' }));
    const history = await call(t.registry.app, 'GET', '/v1/declarations/summarizer-v2');
    expect(history.status).toBe(200);
    const entries = history.body.history as Array<{ version: string; change_reason: string | null }>;
    expect(entries.map((entry) => [entry.version, entry.change_reason])).toEqual([
      ['1', null],
      ['2', 'longer inputs'],
    ]);
    const none = await call(t.registry.app, 'GET', '/v1/declarations/nobody-here');
    expect(none).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const bad = await call(t.registry.app, 'GET', '/v1/declarations/Bad_Name');
    expect(bad).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('accepts operation names outside the catalog, and catalog ids added by config', async () => {
    await t.cleanup();
    t = await startTestRegistry({ config: { catalog: [{ id: 'cooking', description: 'Make food.' }] } });
    const body = registerBody(8001);
    body.declaration.capabilities = { anything_goes: { serves: ['cooking', 'writing'] } };
    expect((await call(t.registry.app, 'POST', '/v1/agents', body)).status).toBe(201);
  });
});

describe('bad registrations get a 4xx with a code, and nothing is stored', () => {
  beforeEach(async () => {
    t = await startTestRegistry({
      config: {
        ...PROJECTED,
        control_plane: {
          tokens: [
            { name: 'text', token: 'text-token-1', capabilities: ['summarize'] },
            { name: 'admin', token: 'admin-token-1', capabilities: ['*'] },
          ],
        },
      },
    });
  });

  const cases: Array<[string, () => { body: unknown; headers?: Record<string, string> }, number, string]> = [
    [
      'malformed JSON',
      () => ({ body: '{"declaration": ', headers: bearer('text-token-1') }),
      400,
      'INVALID_JSON',
    ],
    ['an empty body', () => ({ body: '', headers: bearer('text-token-1') }), 400, 'INVALID_JSON'],
    ['a JSON array', () => ({ body: '[1,2]', headers: bearer('text-token-1') }), 400, 'VALIDATION_FAILED'],
    [
      'wrong types',
      () => {
        const body = registerBody(8001) as unknown as { endpoint: { port: unknown } };
        body.endpoint.port = '8001';
        return { body, headers: bearer('text-token-1') };
      },
      400,
      'VALIDATION_FAILED',
    ],
    [
      'an unknown catalog capability',
      () => {
        const body = registerBody(8001);
        body.declaration.capabilities = { summarize: { serves: ['cooking'] } };
        return { body, headers: bearer('admin-token-1') };
      },
      422,
      'UNKNOWN_CAPABILITY',
    ],
    ['no token', () => ({ body: registerBody(8001) }), 401, 'UNAUTHORIZED'],
    [
      'an unknown token',
      () => ({ body: registerBody(8001), headers: bearer('who-are-you') }),
      401,
      'UNAUTHORIZED',
    ],
    [
      // The token may register `summarize` but the summarizer also publishes `writing`.
      'a token without the right',
      () => ({ body: registerBody(8001), headers: bearer('text-token-1') }),
      403,
      'FORBIDDEN',
    ],
    [
      'a body over 256 KB',
      () => {
        const body = registerBody(8001);
        body.declaration.description = 'x'.repeat(300 * 1024);
        return { body, headers: bearer('text-token-1') };
      },
      413,
      'PAYLOAD_TOO_LARGE',
    ],
  ];

  for (const [what, make, status, code] of cases) {
    it(`refuses ${what} with ${status} ${code}`, async () => {
      const { body, headers } = make();
      const reply = await call(t.registry.app, 'POST', '/v1/agents', body, headers);
      expect(reply.status).toBe(status);
      expect(reply.body.code).toBe(code);
      expect(typeof reply.body.message).toBe('string');
      expect(reply.body.requestId).toEqual(expect.any(String));
      expect(await storedKeys()).toEqual([]);
    });
  }

  it('names the failing field', async () => {
    const body = registerBody(8001) as unknown as { endpoint: { port: unknown } };
    body.endpoint.port = -4;
    const reply = await call(t.registry.app, 'POST', '/v1/agents', body, bearer('text-token-1'));
    expect(reply.body.message).toContain('endpoint.port');
  });

  it('registers what the token grants', async () => {
    const body = registerBody(8001);
    body.declaration.capabilities = { summarize: {} };
    const reply = await call(t.registry.app, 'POST', '/v1/agents', body, bearer('text-token-1'));
    expect(reply.status).toBe(201);
  });
});

describe('a registration the store does not take', () => {
  it('revokes its lease so nothing is left half-stored', async () => {
    t = await startTestRegistry({ config: PROJECTED });
    const original = t.store.commit.bind(t.store);
    t.store.commit = async () => {
      throw new Error('disk full');
    };
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    expect(reply).toMatchObject({ status: 503, body: { code: 'STORE_UNAVAILABLE' } });
    t.store.commit = original;
    expect(await storedKeys()).toEqual([]);
    // The version was not recorded, so the next registration records it.
    expect((await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001))).status).toBe(201);
    expect(await t.store.list('/reach/declarations/')).toHaveLength(1);
  });
});

describe('the embedded store by default', () => {
  it('gets no SkyDNS projection (no reader: CoreDNS reads etcd) while the responder still answers', async () => {
    t = await startTestRegistry();
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    expect(reply.status).toBe(201);
    const id = reply.body.instance_id as string;
    expect(await t.store.get(`/reach/instances/${id}`)).not.toBeNull();
    expect(await t.store.list('/skydns/')).toEqual([]);
    // The responder serves from the /reach/ records: the instance is in the zone all the same.
    await settle();
    const zone = await (await t.registry.app.request('/v1/zone')).text();
    expect(zone).toMatch(new RegExp(`_summarize\\._tcp\\.agents\\.internal\\.\\s.*SRV.*${id}`));
  });
});
