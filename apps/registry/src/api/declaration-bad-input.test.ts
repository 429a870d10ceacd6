import type { RouteResponse } from '@agent-reach/sdk/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { call } from '../testing/http.js';
import { settle, startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

// Issue 14's bad input at registration: a clear 4xx with a code, nothing stored, nothing else broken.

let t: TestRegistry;
beforeEach(async () => {
  t = await startTestRegistry();
});
afterEach(async () => {
  await t.cleanup();
});

const summarize = (extra: Record<string, unknown>) => ({
  summarize: { input: ['text'], output: ['summary'], serves: ['writing'], ...extra },
});

describe('bad declarations', () => {
  it('refuses a 1 MB skill text, a bad capability id and a bad served id with a code; the other agents still register and route', async () => {
    const good = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    expect(good.status).toBe(201);
    const before = (await t.store.list('/')).map((kv) => kv.key);

    const cases: Array<[string, unknown, number, string, string?]> = [
      [
        'a 1 MB skill text',
        registerBody(8002, {
          agent_name: 'huge-agent',
          capabilities: summarize({ description: 'x'.repeat(1 << 20) }),
        }),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      [
        'a skill text over the field limit (within the body limit)',
        registerBody(8002, {
          agent_name: 'long-agent',
          capabilities: summarize({ description: 'y'.repeat(600) }),
        }),
        400,
        'VALIDATION_FAILED',
        'declaration.capabilities.summarize.description',
      ],
      [
        'a capability id that breaks the id rule',
        registerBody(8003, {
          agent_name: 'bad-id-agent',
          capabilities: { 'Word Count!': { input: ['text'] } },
        }),
        400,
        'VALIDATION_FAILED',
        'capability ids match',
      ],
      [
        'a served capability id that breaks the id rule',
        registerBody(8004, { agent_name: 'bad-serves', capabilities: summarize({ serves: ['NOT-AN-ID'] }) }),
        400,
        'VALIDATION_FAILED',
        'capability ids match',
      ],
      [
        'a declaration with no capability',
        registerBody(8005, { agent_name: 'empty-agent', capabilities: {} }),
        400,
        'VALIDATION_FAILED',
        'declare at least one capability',
      ],
    ];
    for (const [name, body, status, code, inMessage] of cases) {
      const reply = await call(t.registry.app, 'POST', '/v1/agents', body);
      expect([reply.status, reply.body.code], name).toEqual([status, code]);
      expect(reply.body.message, name).toBeTruthy();
      if (inMessage) expect(reply.body.message, name).toContain(inMessage);
    }
    // Nothing of the refused registrations was stored.
    expect((await t.store.list('/')).map((kv) => kv.key)).toEqual(before);

    // Everything else still works: another agent registers, both route.
    const other = await call(
      t.registry.app,
      'POST',
      '/v1/agents',
      registerBody(8006, {
        agent_name: 'word-counter',
        capabilities: { word_count: { description: 'Counts words' } },
      }),
    );
    expect(other.status).toBe(201);
    await settle();
    const route = async (operation: string) =>
      (
        (await call(t.registry.app, 'POST', '/v1/route', { operation })).body as unknown as RouteResponse
      ).candidates.map((c) => c.agent_name);
    expect(await route('summarize')).toEqual(['summarizer-v2']);
    expect(await route('word_count')).toEqual(['word-counter']);
  });
});
