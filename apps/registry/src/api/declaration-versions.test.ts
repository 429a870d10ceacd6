import type { DeclarationHistoryEntry, RouteResponse } from '@agent-reach/sdk/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { settle, startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

let t: TestRegistry;
afterEach(async () => {
  await t.cleanup();
});

// Lease tokens of the instances registered, by instance id.
const leases = new Map<string, string>();
async function register(port: number, overrides: Parameters<typeof registerBody>[1] = {}, headers = {}) {
  const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(port, overrides), headers);
  if (reply.status === 201) leases.set(reply.body.instance_id as string, reply.body.lease_token as string);
  return reply;
}
const history = async () =>
  (await call(t.registry.app, 'GET', '/v1/declarations/summarizer-v2')).body
    .history as DeclarationHistoryEntry[];
const verify = (version: string, body: unknown = {}, headers = {}) =>
  call(t.registry.app, 'POST', `/v1/declarations/summarizer-v2/versions/${version}/verify`, body, headers);
/** The version factor routing gives each instance of summarizer-v2, by instance id. */
async function versionFactors(): Promise<Record<string, number | undefined>> {
  const reply = await call(t.registry.app, 'POST', '/v1/route', {
    operation: 'summarize',
    max_candidates: 10,
  });
  const candidates = (reply.body as unknown as RouteResponse).candidates;
  return Object.fromEntries(candidates.map((c) => [c.instance_id, c.breakdown.version]));
}
const successes = (instanceId: string, count: number, prefix: string) => ({
  outcomes: Array.from({ length: count }, (_, i) => ({
    instance_id: instanceId,
    request_id: `${prefix}-${i}`,
    ok: true,
    latency_ms: 5,
  })),
});

describe('declaration versions', () => {
  it('refuses a changed declaration under a recorded version with 409 DECLARATION_VERSION_CHANGED; the same content registers', async () => {
    t = await startTestRegistry();
    expect((await register(8001)).status).toBe(201);
    // Another instance of the same version, elsewhere: the endpoint is not part of the content.
    expect((await register(8002)).status).toBe(201);
    const changed = await register(8003, { priority: 10 });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('DECLARATION_VERSION_CHANGED');
    expect(changed.body.message).toContain('new version');
    expect(changed.body.data).toMatchObject({ agent_name: 'summarizer-v2', version: '1' });
    // Nothing of the refused registration was stored.
    expect((await call(t.registry.app, 'GET', '/v1/agents')).body.instances).toHaveLength(2);
    expect(await t.store.list('/reach/declarations/summarizer-v2/')).toHaveLength(1);
  });

  it('needs a change reason for a second version (422 CHANGE_REASON_REQUIRED)', async () => {
    t = await startTestRegistry();
    expect((await register(8001)).status).toBe(201);
    const bare = await register(8002, { version: '2', priority: 90 });
    expect(bare.status).toBe(422);
    expect(bare.body.code).toBe('CHANGE_REASON_REQUIRED');
    expect((await register(8002, { version: '2', priority: 90, change_reason: 'busier' })).status).toBe(201);
    expect((await history()).map((e) => [e.version, e.change_reason])).toEqual([
      ['1', null],
      ['2', 'busier'],
    ]);
  });

  it('verifies a version after verify_after_calls successful reported calls', async () => {
    t = await startTestRegistry({ config: { control_plane: { declarations: { verify_after_calls: 3 } } } });
    const id = (await register(8001)).body.instance_id as string;
    await settle();
    const failed = {
      outcomes: [{ instance_id: id, request_id: 'f', ok: false, failure: 'http_5xx', latency_ms: 5 }],
    };
    expect((await call(t.registry.app, 'POST', '/v1/outcomes', failed)).status).toBe(202);
    expect((await call(t.registry.app, 'POST', '/v1/outcomes', successes(id, 2, 'a'))).status).toBe(202);
    // A re-sent batch counts once.
    await call(t.registry.app, 'POST', '/v1/outcomes', successes(id, 2, 'a'));
    await t.advance(2_000, 500);
    expect((await history())[0]).toMatchObject({ verified: false, successful_calls: 2 });
    await call(t.registry.app, 'POST', '/v1/outcomes', successes(id, 1, 'b'));
    await t.advance(2_000, 500);
    expect((await history())[0]).toMatchObject({
      verified: true,
      verified_by: 'calls',
      verified_reason: 'served 3 successful calls',
      successful_calls: 3,
    });
  });

  it('lets an operator verify a version: the verify_declarations right, NOT_FOUND for an unknown version', async () => {
    t = await startTestRegistry({
      config: {
        control_plane: {
          tokens: [
            { name: 'agents', token: 'agents-token-01', capabilities: ['*'] },
            { name: 'ops', token: 'ops-token-0001', rights: ['verify_declarations'] },
          ],
        },
      },
    });
    expect((await register(8001, {}, bearer('agents-token-01'))).status).toBe(201);
    expect((await verify('1')).body.code).toBe('UNAUTHORIZED');
    const refused = await verify('1', {}, bearer('agents-token-01'));
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await verify('7', {}, bearer('ops-token-0001'))).body.code).toBe('NOT_FOUND');
    expect((await verify('bad version!', {}, bearer('ops-token-0001'))).body.code).toBe('VALIDATION_FAILED');
    expect((await verify('1', { reason: 42 }, bearer('ops-token-0001'))).body.code).toBe('VALIDATION_FAILED');
    const ok = await verify('1', { reason: 'reviewed' }, bearer('ops-token-0001'));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      version: '1',
      verified: true,
      verified_by: 'ops',
      verified_reason: 'reviewed',
    });
    expect((await history())[0]).toMatchObject({ verified: true, verified_by: 'ops' });
  });

  it('routes to the newest verified live version, the newest when none is verified, and shows which is which', async () => {
    t = await startTestRegistry();
    const v1 = (await register(8001)).body.instance_id as string;
    const v2 = (await register(8002, { version: '2', change_reason: 'longer inputs' })).body
      .instance_id as string;
    const v3 = (await register(8003, { version: '3', change_reason: 'faster' })).body.instance_id as string;
    await settle();
    // Nothing verified: the newest version is preferred; the others are still drawn, less often.
    expect(await versionFactors()).toEqual({ [v1]: 0.1, [v2]: 0.1, [v3]: 1 });
    expect((await verify('1')).status).toBe(200);
    await settle();
    expect(await versionFactors()).toEqual({ [v1]: 1, [v2]: 0.1, [v3]: 0.1 });
    expect((await verify('2', { reason: 'canary ok' })).status).toBe(200);
    await settle();
    expect(await versionFactors()).toEqual({ [v1]: 0.1, [v2]: 1, [v3]: 0.1 });
    const route = (
      await call(t.registry.app, 'POST', '/v1/route', { operation: 'summarize', max_candidates: 3 })
    ).body as unknown as RouteResponse;
    const scores = Object.fromEntries(route.candidates.map((c) => [c.instance_id, c.score]));
    expect(scores[v2]).toBeGreaterThan(5 * scores[v1]!);
    expect((await history()).map((e) => [e.version, e.verified, e.verified_by])).toEqual([
      ['1', true, 'open'],
      ['2', true, 'open'],
      ['3', false, null],
    ]);
    // The preferred version's instance goes: the newest verified version that is live takes over.
    await call(t.registry.app, 'DELETE', `/v1/agents/${v2}`, undefined, bearer(leases.get(v2)!));
    await settle();
    expect(await versionFactors()).toEqual({ [v1]: 1, [v3]: 0.1 });
  });

  it('keeps versions, their verification and the routing preference across a restart', async () => {
    t = await startTestRegistry();
    const v1 = (await register(8001)).body.instance_id as string;
    const v2 = (await register(8002, { version: '2', change_reason: 'longer inputs' })).body
      .instance_id as string;
    expect((await verify('1', { reason: 'proven' })).status).toBe(200);
    t = await t.restart();
    await settle();
    const changed = await register(8003, { version: '2', priority: 1, change_reason: 'sneaky' });
    expect([changed.status, changed.body.code]).toEqual([409, 'DECLARATION_VERSION_CHANGED']);
    expect((await register(8004, { version: '3' })).body.code).toBe('CHANGE_REASON_REQUIRED');
    expect((await register(8005, { version: '2', change_reason: 'longer inputs' })).status).toBe(201);
    expect((await history()).map((e) => [e.version, e.verified, e.verified_reason])).toEqual([
      ['1', true, 'proven'],
      ['2', false, null],
    ]);
    const factors = await versionFactors();
    expect([factors[v1], factors[v2]]).toEqual([1, 0.1]);
  });
});
