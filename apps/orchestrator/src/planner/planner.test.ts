import { afterEach, describe, expect, it } from 'vitest';
import { FINAL_CAPABILITY, isValidDag } from '../plan/index.js';
import { FakeProvider, type FakeReply } from '../testing/fake-provider.js';
import { openAiClientFactory, Planner } from './planner.js';
import type { PlannerClock, ProviderSettings } from './types.js';

const GOOD_PLAN = JSON.stringify({
  intent: '下线接口',
  nodes: [
    { id: 'n1', capability: 'research', depends_on: [], parallel_group: 'g1', purpose: '查资料' },
    {
      id: 'n2',
      capability: 'implementation',
      depends_on: ['n1'],
      parallel_group: 'g2',
      purpose: '实现下线接口',
    },
    { id: 'n3', capability: 'synthesis', depends_on: ['n1', 'n2'], parallel_group: 'g3', purpose: '汇总' },
  ],
  final_node: 'n3',
  reasoning: 'r',
});
const TASK = '设计一个用户下线接口';

const fakes: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function fake(
  reply: (req: Parameters<Parameters<typeof FakeProvider.start>[0]>[0], i: number) => FakeReply,
) {
  const f = await FakeProvider.start(reply);
  fakes.push(f);
  return f;
}
const provider = (
  name: string,
  f: FakeProvider,
  extra: Partial<ProviderSettings> = {},
): ProviderSettings => ({
  name,
  base_url: f.baseUrl,
  model: `${name}-model`,
  concurrency: 2,
  timeout: 5000,
  ...extra,
});
const sleeps: number[] = [];
const clock: PlannerClock = { now: () => performance.now(), sleep: async (ms) => void sleeps.push(ms) };
const planner = (providers: ProviderSettings[], env: Record<string, string> = {}) =>
  new Planner({ providers, env, clock, retryDelayMs: 5 });

describe('Planner against a local OpenAI-compatible server', () => {
  it('retries once on 524 and uses the second answer', async () => {
    const a = await fake((_, i) => (i === 0 ? { status: 524 } : { content: GOOD_PLAN }));
    sleeps.length = 0;
    const out = await planner([provider('a', a)]).plan(TASK);
    expect(sleeps).toEqual([5]);
    expect(out.degraded).toBe(false);
    expect(out.provider).toBe('a');
    expect(out.attempts.map((x) => [x.provider, x.status])).toEqual([
      ['a', 524],
      ['a', 200],
    ]);
    expect(out.plan.nodes.map((n) => n.capability)).toEqual(['research', 'implementation', 'synthesis']);
    expect(out.levels).toEqual([['n1'], ['n2'], ['n3']]);
  });

  it('falls back to the next provider after 429 twice', async () => {
    const a = await fake(() => ({ status: 429 }));
    const b = await fake(() => ({ content: GOOD_PLAN }));
    const out = await planner([provider('a', a), provider('b', b)]).plan(TASK);
    expect(out.provider).toBe('b');
    expect(out.degraded).toBe(false);
    expect(out.attempts.map((x) => [x.provider, x.status])).toEqual([
      ['a', 429],
      ['a', 429],
      ['b', 200],
    ]);
    expect(a.requests).toHaveLength(2);
  });

  it('does not retry a status outside the retryable set', async () => {
    const a = await fake(() => ({ status: 400 }));
    const b = await fake(() => ({ content: GOOD_PLAN }));
    const out = await planner([provider('a', a), provider('b', b)]).plan(TASK);
    expect(a.requests).toHaveLength(1);
    expect(out.provider).toBe('b');
  });

  it('doubles max_tokens on finish_reason=length instead of using the reasoning text', async () => {
    const a = await fake((req) =>
      (req.body.max_tokens ?? 0) < 2048
        ? { content: GOOD_PLAN.slice(0, 40), finish_reason: 'length', reasoning_content: '{"nodes":[]}' }
        : { content: GOOD_PLAN },
    );
    const out = await planner([provider('a', a)]).plan(TASK);
    expect(a.requests.map((r) => r.body.max_tokens)).toEqual([1024, 2048]);
    expect(out.attempts.map((x) => [x.max_tokens, x.finish_reason])).toEqual([
      [1024, 'length'],
      [2048, 'stop'],
    ]);
    expect(out.degraded).toBe(false);
    expect(out.plan.nodes).toHaveLength(3);
  });

  it('gives up on a provider whose output is still cut at the 4096 cap', async () => {
    const a = await fake(() => ({ content: '{"nodes": [', finish_reason: 'length' }));
    const out = await planner([provider('a', a)]).plan(TASK);
    expect(a.requests.map((r) => r.body.max_tokens)).toEqual([1024, 2048, 4096]);
    expect(out.degraded).toBe(true);
    expect(out.provider).toBeNull();
  });

  it('treats garbage as a failure: next provider, else the degraded fallback plan', async () => {
    const a = await fake(() => ({ content: 'I am sorry, I cannot plan that.' }));
    const alone = await planner([provider('a', a)]).plan(TASK);
    expect(alone.degraded).toBe(true);
    expect(alone.raw).toBe('I am sorry, I cannot plan that.');
    expect(alone.plan.nodes.map((n) => n.capability)).toEqual([
      'planning',
      'research',
      'security_review',
      'implementation',
      'synthesis',
    ]);
    expect(alone.warnings).toContain('a: answer is not JSON — next provider');

    const b = await fake(() => ({ content: GOOD_PLAN }));
    const chained = await planner([provider('a', a), provider('b', b)]).plan(TASK);
    expect(chained.provider).toBe('b');
    expect(chained.degraded).toBe(false);
  });

  it('reads fenced JSON with trailing commas', async () => {
    const fenced =
      '好的：\n```json\n{"intent":"x","nodes":[{"id":"n1","capability":"research","depends_on":[],},],}\n```';
    const a = await fake(() => ({ content: fenced }));
    const out = await planner([provider('a', a)]).plan(TASK);
    expect(out.degraded).toBe(false);
    expect(out.plan.nodes.map((n) => n.capability)).toEqual(['research', FINAL_CAPABILITY]);
    expect(out.raw).toEqual({ intent: 'x', nodes: [{ id: 'n1', capability: 'research', depends_on: [] }] });
  });

  it('moves on when a provider refuses connections', async () => {
    const dead = await fake(() => ({ status: 500 }));
    const deadUrl = dead.baseUrl;
    await dead.close();
    fakes.splice(fakes.indexOf(dead), 1);
    const b = await fake(() => ({ content: GOOD_PLAN }));
    const out = await planner([
      { name: 'dead', base_url: deadUrl, model: 'm', concurrency: 1, timeout: 2000 },
      provider('b', b),
    ]).plan(TASK);
    expect(out.provider).toBe('b');
    expect(out.attempts[0]).toMatchObject({ provider: 'dead', status: null });
  });

  it('sends the key from api_key_env and skips a provider whose key is missing', async () => {
    const a = await fake(() => ({ content: GOOD_PLAN }));
    const b = await fake(() => ({ content: GOOD_PLAN }));
    const out = await planner(
      [provider('a', a, { api_key_env: 'A_KEY' }), provider('b', b, { api_key_env: 'B_KEY' })],
      { B_KEY: 'sk-test-b' },
    ).plan(TASK);
    expect(a.requests).toHaveLength(0);
    expect(b.requests[0]!.authorization).toBe('Bearer sk-test-b');
    expect(out.attempts[0]).toMatchObject({ provider: 'a', status: null });
    expect(out.attempts[0]!.error).toContain('A_KEY');
  });

  it('puts the requested provider first', async () => {
    const a = await fake(() => ({ content: GOOD_PLAN }));
    const b = await fake(() => ({ content: GOOD_PLAN }));
    const out = await planner([provider('a', a), provider('b', b)]).plan(TASK, { provider: 'b' });
    expect(out.provider).toBe('b');
    expect(a.requests).toHaveLength(0);
  });

  it('sends the catalog and the live capabilities in the prompt', async () => {
    const a = await fake(() => ({ content: GOOD_PLAN }));
    await planner([provider('a', a)]).plan(TASK, { available: ['research', 'synthesis'] });
    const [system, user] = a.requests[0]!.body.messages!;
    expect(system!.content).toContain('- implementation:');
    expect(system!.content).toContain('right now: research, synthesis');
    expect(user!.content).toBe(TASK);
  });

  it('holds the per-provider concurrency limit under load', async () => {
    const slow = await fake(() => ({ content: GOOD_PLAN, delayMs: 60 }));
    const one = await fake(() => ({ content: GOOD_PLAN, delayMs: 60 }));
    const p2 = planner([provider('slow', slow, { concurrency: 2 })]);
    const p1 = planner([provider('one', one, { concurrency: 1 })]);
    const outs = await Promise.all([
      ...Array.from({ length: 6 }, () => p2.plan(TASK)),
      ...Array.from({ length: 4 }, () => p1.plan(TASK)),
    ]);
    expect(outs.every((o) => !o.degraded && isValidDag(o.plan.nodes))).toBe(true);
    expect(slow.requests).toHaveLength(6);
    expect(slow.peakConcurrent).toBe(2);
    expect(one.peakConcurrent).toBe(1);
  });

  it('skips a provider whose client cannot be built', async () => {
    const b = await fake(() => ({ content: GOOD_PLAN }));
    const out = await new Planner({
      providers: [provider('a', b), provider('b', b)],
      clock,
      clientFactory: (p, key) => {
        if (p.name === 'a') throw new Error('bad base url');
        return openAiClientFactory(p, key);
      },
    }).plan(TASK);
    expect(out.provider).toBe('b');
    expect(out.attempts[0]).toMatchObject({ provider: 'a', status: null });
    expect(out.attempts[0]!.error).toContain('bad base url');
  });

  it('uses the offline planner when no provider is configured', async () => {
    const out = await planner([]).plan(TASK);
    expect(out.provider).toBe('offline');
    expect(out.degraded).toBe(false);
    expect(out.attempts).toEqual([]);
    expect(out.plan.nodes.at(-1)!.capability).toBe(FINAL_CAPABILITY);
  });
});
