import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { settle, startTestRegistry, type TestRegistry } from '../testing/test-registry.js';
import { WEIGHT_HYSTERESIS } from '../weights/compute-weight.js';

const TOKENS = {
  owner: 'owner-token-0001',
  rival: 'rival-token-0001',
  summarize: 'summarize-only-token',
  caller: 'caller-token-0001',
  second: 'second-caller-token',
};

let t: TestRegistry;
afterEach(async () => {
  await t.cleanup();
});

beforeEach(async () => {
  t = await startTestRegistry({
    config: {
      control_plane: {
        tokens: [
          { name: 'owner', token: TOKENS.owner, capabilities: ['*'] },
          { name: 'rival', token: TOKENS.rival, capabilities: ['*'], rights: ['register'] },
          { name: 'summarize', token: TOKENS.summarize, capabilities: ['summarize'], agent_names: ['sum-*'] },
          { name: 'caller', token: TOKENS.caller, rights: ['report_outcomes'] },
          { name: 'second', token: TOKENS.second, rights: ['report_outcomes'] },
        ],
      },
    },
  });
});

const failures = (instanceId: string, count: number, prefix = 'r') => ({
  outcomes: Array.from({ length: count }, (_, i) => ({
    instance_id: instanceId,
    request_id: `${prefix}-${i}`,
    ok: false,
    failure: 'http_5xx',
    latency_ms: 5,
  })),
});

describe('agent names are owned', () => {
  it('binds a name to the token that first registered it; another token gets 403 NAME_OWNED and the history stays', async () => {
    const first = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001), bearer(TOKENS.owner));
    expect(first.status).toBe(201);
    const before = await call(t.registry.app, 'GET', '/v1/declarations/summarizer-v2');
    expect(before.body.history).toMatchObject([{ version: '1', changed_by: 'owner' }]);
    const bound = JSON.parse((await t.store.get('/reach/owners/summarizer-v2'))!);
    expect(bound).toMatchObject({ agent_name: 'summarizer-v2', token: 'owner' });

    const hijack = await call(
      t.registry.app,
      'POST',
      '/v1/agents',
      registerBody(9001, { version: '2', change_reason: 'hijacked' }),
      bearer(TOKENS.rival),
    );
    expect([hijack.status, hijack.body.code]).toEqual([403, 'NAME_OWNED']);
    expect(hijack.body.data).toEqual({ agent_name: 'summarizer-v2' });
    const after = await call(t.registry.app, 'GET', '/v1/declarations/summarizer-v2');
    expect(after.body).toEqual(before.body);
    const listed = await call(t.registry.app, 'GET', '/v1/agents?agent_name=summarizer-v2');
    expect(listed.body.instances).toHaveLength(1);

    // The owner may change its own declaration; the history says who.
    const update = await call(
      t.registry.app,
      'POST',
      '/v1/agents',
      registerBody(8002, { version: '2', change_reason: 'longer inputs' }),
      bearer(TOKENS.owner),
    );
    expect(update.status).toBe(201);
    const history = await call(t.registry.app, 'GET', '/v1/declarations/summarizer-v2');
    expect(history.body.history).toMatchObject([
      { version: '1', changed_by: 'owner' },
      { version: '2', changed_by: 'owner', change_reason: 'longer inputs' },
    ]);
  });

  it('refuses names outside the token’s agent-name patterns with FORBIDDEN', async () => {
    const declaration = {
      capabilities: { summarize: { input: ['text'], output: ['summary'] } },
    };
    const outside = await call(
      t.registry.app,
      'POST',
      '/v1/agents',
      registerBody(8001, { agent_name: 'trans-b', ...declaration }),
      bearer(TOKENS.summarize),
    );
    expect([outside.status, outside.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(await t.store.list('/reach/instances/')).toEqual([]);
    expect(await t.store.list('/reach/owners/')).toEqual([]);
    const inside = await call(
      t.registry.app,
      'POST',
      '/v1/agents',
      registerBody(8001, { agent_name: 'sum-a', ...declaration }),
      bearer(TOKENS.summarize),
    );
    expect(inside.status).toBe(201);
  });

  it('lets only one of two tokens registering a new name at the same moment bind it', async () => {
    const [a, b] = await Promise.all([
      call(t.registry.app, 'POST', '/v1/agents', registerBody(8001), bearer(TOKENS.owner)),
      call(t.registry.app, 'POST', '/v1/agents', registerBody(8002), bearer(TOKENS.rival)),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 403]);
  });

  it('survives a restart: the binding is durable', async () => {
    expect(
      (await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001), bearer(TOKENS.owner))).status,
    ).toBe(201);
    t = await t.restart();
    const hijack = await call(t.registry.app, 'POST', '/v1/agents', registerBody(9001), bearer(TOKENS.rival));
    expect(hijack.body.code).toBe('NAME_OWNED');
  });
});

describe('outcomes are authenticated and bounded', () => {
  async function victim(): Promise<string> {
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001), bearer(TOKENS.owner));
    await settle();
    return reply.body.instance_id as string;
  }

  it('refuses outcomes without a token (401) and from a token without the right (403)', async () => {
    const id = await victim();
    const none = await call(t.registry.app, 'POST', '/v1/outcomes', failures(id, 100));
    expect([none.status, none.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const wrong = await call(t.registry.app, 'POST', '/v1/outcomes', failures(id, 1), bearer(TOKENS.rival));
    expect([wrong.status, wrong.body.code]).toEqual([403, 'FORBIDDEN']);
    const stats = await call(t.registry.app, 'GET', '/v1/routing/stats');
    expect(stats.body.instances).toMatchObject([{ instance_id: id, window: 0, success_rate: 0.9 }]);
  });

  it('keeps one caller’s 1,000 fabricated failures above the degraded cut-off; callers that agree move it all the way', async () => {
    const id = await victim();
    for (let batch = 0; batch < 10; batch++) {
      const reply = await call(
        t.registry.app,
        'POST',
        '/v1/outcomes',
        failures(id, 100, `b${batch}`),
        bearer(TOKENS.caller),
      );
      expect(reply.status).toBe(202);
    }
    const rate = () => t.registry.routing.router.book.successRate(id);
    expect(rate()).toBeGreaterThan(WEIGHT_HYSTERESIS.degradeBelow);
    expect(rate()).toBeCloseTo(0.45, 5);
    const route = await call(t.registry.app, 'POST', '/v1/route', { operation: 'summarize' });
    expect(route.body.candidates).toMatchObject([{ instance_id: id, state: 'healthy' }]);
    // A second, independent caller seeing the same failures is evidence the cap does not hide.
    await call(t.registry.app, 'POST', '/v1/outcomes', failures(id, 100, 's'), bearer(TOKENS.second));
    expect(rate()).toBeLessThan(0.1);
  });
});
