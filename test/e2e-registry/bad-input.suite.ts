import { afterAll, describe, expect, it } from 'vitest';
import { TOKENS } from './e2e-config.js';
import type { E2eEnv } from './e2e-env.js';
import { registerBody, registerOverHttp } from './http-registration.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** One request the registry must refuse. */
interface BadRequest {
  name: string;
  method: 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  headers: Record<string, string>;
  status: number;
  code: string;
}

/** Bad input gets a 4xx with a code and a message, and leaves the store exactly as it was. */
export function badInputSuite(env: () => E2eEnv): void {
  describe('bad input', () => {
    let live: { id: string; lease: Record<string, string> } | undefined;
    let beating: NodeJS.Timeout | undefined;
    afterAll(async () => {
      clearInterval(beating);
      if (live) await env().api.send('DELETE', `/v1/agents/${live.id}`, undefined, live.lease);
    });

    it('gets a 4xx with a code and a message, and nothing is stored', async () => {
      const { api, store, registry } = env();
      // One live instance, so heartbeat and deregister have a real target to get wrong.
      live = await registerOverHttp(env(), 'bad-input-target', 9101);
      const target = live;
      // Keep it alive while the refusals run, so its keys do not change under the comparison.
      let seq = 0;
      const beat = () => api.send('POST', `/v1/agents/${target.id}/heartbeat`, { seq: ++seq }, target.lease);
      expect((await beat()).status).toBe(200);
      beating = setInterval(() => void beat(), 300);
      const good = registerBody('bad-input-agent', 9102, 'summarize');
      const register = (body: unknown, headers: Record<string, string>) => ({
        method: 'POST' as const,
        path: '/v1/agents',
        body,
        headers,
      });
      const cases: BadRequest[] = [
        {
          name: 'malformed JSON',
          ...register('{"declaration":', bearer(TOKENS.agents)),
          status: 400,
          code: 'INVALID_JSON',
        },
        { name: 'empty body', ...register('', bearer(TOKENS.agents)), status: 400, code: 'INVALID_JSON' },
        {
          name: 'JSON that is not an object',
          ...register('[1,2]', bearer(TOKENS.agents)),
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'priority of the wrong type',
          ...register(
            { ...good, declaration: { ...good.declaration, priority: 'high' } },
            bearer(TOKENS.agents),
          ),
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'port of the wrong type',
          ...register({ ...good, endpoint: { host: '127.0.0.1', port: '9102' } }, bearer(TOKENS.agents)),
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'a host name where an IP address belongs',
          ...register({ ...good, endpoint: { host: 'agent.example', port: 9102 } }, bearer(TOKENS.agents)),
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'an unknown catalog capability',
          ...register(
            {
              ...good,
              declaration: {
                ...good.declaration,
                capabilities: { summarize: { input: ['text'], output: ['summary'], serves: ['cooking'] } },
              },
            },
            bearer(TOKENS.agents),
          ),
          status: 422,
          code: 'UNKNOWN_CAPABILITY',
        },
        {
          name: 'a body over 256 KB',
          ...register({ ...good, pad: 'x'.repeat(300_000) }, bearer(TOKENS.agents)),
          status: 413,
          code: 'PAYLOAD_TOO_LARGE',
        },
        { name: 'no token', ...register(good, {}), status: 401, code: 'UNAUTHORIZED' },
        {
          name: 'an unknown token',
          ...register(good, bearer('not-a-configured-token')),
          status: 401,
          code: 'UNAUTHORIZED',
        },
        {
          name: 'a token without the right to the capability',
          ...register(registerBody('bad-input-agent', 9102, 'translate'), bearer(TOKENS.text)),
          status: 403,
          code: 'FORBIDDEN',
        },
        {
          name: 'a heartbeat with a seq of the wrong type',
          method: 'POST',
          path: `/v1/agents/${live.id}/heartbeat`,
          body: { seq: 'one' },
          headers: live.lease,
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'a heartbeat with a registration token instead of the lease token',
          method: 'POST',
          path: `/v1/agents/${live.id}/heartbeat`,
          body: { seq: 1 },
          headers: bearer(TOKENS.agents),
          status: 401,
          code: 'LEASE_TOKEN_INVALID',
        },
        {
          name: 'a deregistration without the lease token',
          method: 'DELETE',
          path: `/v1/agents/${live.id}`,
          headers: bearer(TOKENS.agents),
          status: 401,
          code: 'LEASE_TOKEN_INVALID',
        },
        {
          name: 'outcomes without a token',
          method: 'POST',
          path: '/v1/outcomes',
          body: {
            outcomes: [
              { instance_id: live.id, request_id: 'x', ok: false, failure: 'http_5xx', latency_ms: 1 },
            ],
          },
          headers: {},
          status: 401,
          code: 'UNAUTHORIZED',
        },
        {
          name: 'outcomes with an unknown token',
          method: 'POST',
          path: '/v1/outcomes',
          body: { outcomes: [{ instance_id: live.id, request_id: 'x', ok: true, latency_ms: 1 }] },
          headers: bearer('not-a-configured-token'),
          status: 401,
          code: 'UNAUTHORIZED',
        },
        {
          name: 'outcomes that are not JSON',
          method: 'POST',
          path: '/v1/outcomes',
          body: '{"outcomes": [',
          headers: bearer(TOKENS.agents),
          status: 400,
          code: 'INVALID_JSON',
        },
        {
          name: 'an outcome failure that is not a failure class',
          method: 'POST',
          path: '/v1/outcomes',
          body: {
            outcomes: [{ instance_id: live.id, request_id: 'x', ok: false, failure: 'meh', latency_ms: 1 }],
          },
          headers: bearer(TOKENS.agents),
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'another token registering an owned agent name',
          ...register(registerBody('bad-input-target', 9103, 'summarize'), bearer(TOKENS.text)),
          status: 403,
          code: 'NAME_OWNED',
        },
        {
          name: 'a previous registration that is no object',
          ...register({ ...good, previous: 'summarizer-1234' }, bearer(TOKENS.agents)),
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'a previous instance id of 5,000 characters',
          ...register(
            { ...good, previous: { instance_id: 'x'.repeat(5000), lease_token: 'abc' } },
            bearer(TOKENS.agents),
          ),
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'a heartbeat for an id of 5,000 characters',
          method: 'POST',
          path: `/v1/agents/${'a'.repeat(5000)}/heartbeat`,
          body: { seq: 1 },
          headers: live.lease,
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'a percent-escape that decodes to no UTF-8',
          method: 'POST',
          path: '/v1/agents/%E0%A4%A/heartbeat',
          body: { seq: 1 },
          headers: live.lease,
          status: 400,
          code: 'VALIDATION_FAILED',
        },
        {
          name: 'an instance id that is no DNS label',
          method: 'DELETE',
          path: '/v1/agents/Not_A_Label',
          headers: live.lease,
          status: 400,
          code: 'VALIDATION_FAILED',
        },
      ];

      const ids = async () => (await api.instances()).map((view) => [view.instance_id, view.registered_at]);
      const listedBefore = await ids();
      const keysBefore = await store.snapshot(registry.url);
      expect(listedBefore.map(([id]) => id)).toEqual([live.id]);
      expect(keysBefore.filter((key) => key.includes(target.id)).length).toBeGreaterThan(0);
      for (const bad of cases) {
        const reply = await api.send(bad.method, bad.path, bad.body, bad.headers);
        expect([bad.name, reply.status, reply.body.code]).toEqual([bad.name, bad.status, bad.code]);
        expect(reply.body.message, bad.name).toMatch(/\S{3}/);
        // Client input is quoted cut short, never echoed whole.
        expect(reply.body.message!.length, bad.name).toBeLessThan(400);
      }
      // A chunked body (no Content-Length) over the limit is cut off while it streams.
      const chunked = await fetch(`${registry.url}/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(TOKENS.agents) },
        body: new Blob([JSON.stringify({ ...good, pad: 'y'.repeat(400_000) })]).stream(),
        duplex: 'half',
      } as RequestInit);
      const chunkedBody = (await chunked.json()) as { code?: string; message?: string };
      expect([chunked.status, chunkedBody.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);

      expect(await ids()).toEqual(listedBefore);
      expect((await api.instance(live.id))!.state).toBe('healthy');
      expect(await store.snapshot(registry.url)).toEqual(keysBefore);
      const history = await api.send('GET', '/v1/declarations/bad-input-agent');
      expect([history.status, history.body.code]).toEqual([404, 'NOT_FOUND']);
      // The refusals were answers, not failures: the registry counted no 5xx.
      const metrics = await api.metrics();
      expect(metrics).toMatch(/reach_registry_http_requests_total\{[^}]*status="413"\} \d/);
      expect(metrics).not.toMatch(/status="5\d\d"/);
    });
  });
}
