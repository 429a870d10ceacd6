import { Outcome, RouteQuery, type RouteQueryInput } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeInstanceSource } from '../testing/fake-instance-source.js';
import { FakeLiveness, seededRandom, testInstance } from '../testing/routing-instances.js';
import { Router, type RouterDeps } from './router.js';

const q = (input: Partial<RouteQueryInput> = {}) => RouteQuery.parse({ operation: 'summarize', ...input });

let routers: Router[] = [];
afterEach(() => {
  for (const router of routers) router.close();
  routers = [];
});

function setup(deps: Partial<RouterDeps> = {}) {
  const source = new FakeInstanceSource();
  const clock = new ManualClock();
  const liveness = new FakeLiveness();
  const router = new Router({ source, clock, liveness, random: seededRandom(7), ...deps });
  routers.push(router);
  return { source, clock, liveness, router };
}

/** How often each instance comes first over `n` route calls. */
function firstShare(router: Router, query: RouteQuery, n = 2000): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < n; i += 1) {
    const first = router.route(query).candidates[0]?.instance_id ?? 'none';
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  return new Map([...counts].map(([id, count]) => [id, count / n]));
}

const failures = (instanceId: string, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) =>
    Outcome.parse({
      instance_id: instanceId,
      request_id: `f${from + i}`,
      ok: false,
      failure: 'http_5xx',
      latency_ms: 5,
      final: false,
    }),
  );
const successes = (instanceId: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    Outcome.parse({
      instance_id: instanceId,
      request_id: `s${i}`,
      ok: true,
      latency_ms: 5,
      attempt: 2,
      final: true,
    }),
  );

describe('Router.route', () => {
  it('filters by domain, operation (or a capability it serves) and constraints, with the breakdown', () => {
    const { source, router } = setup();
    source.put(
      testInstance('fast-1', {
        operations: { summarize: { constraints: { max_tokens: 5000, response_time_sec: 2 } } },
      }),
      testInstance('slow-1', {
        operations: { summarize: { constraints: { max_tokens: 5000, response_time_sec: 9 } } },
      }),
      testInstance('small-1', {
        operations: { summarize: { constraints: { max_tokens: 100, response_time_sec: 1 } } },
      }),
      testInstance('other-1', { domain: 'data_analysis' }),
      testInstance('writer-1', { operations: { draft: { serves: ['summarize'] } } }),
      testInstance('translate-1', { operations: { translate: {} } }),
    );
    const answer = router.route(
      q({
        domain: 'text_processing',
        constraints: { input_size: 4000, max_latency_sec: 2 },
        max_candidates: 10,
      }),
    );
    const ids = answer.candidates.map((c) => c.instance_id).sort();
    expect(ids).toEqual(['fast-1', 'writer-1']);
    const writer = answer.candidates.find((c) => c.instance_id === 'writer-1')!;
    expect(writer.operation).toBe('draft');
    expect(writer.breakdown.match).toBeCloseTo(0.85 * 0.9 * 0.9);
    const fast = answer.candidates.find((c) => c.instance_id === 'fast-1')!;
    expect(fast.breakdown).toEqual({
      match: 1,
      health: 1,
      success_rate: 0.9,
      load: 1,
      warmup: 1,
      priority: 0.5,
      version: 1,
    });
    expect(fast.score).toBeCloseTo(0.45);
    expect(router.route(q({ operation: 'nothing_here' })).candidates).toEqual([]);
  });

  it('moves traffic away from a failing high-priority agent to a lower-priority one (a weight, not a veto)', () => {
    const { source, router } = setup();
    source.put(testInstance('premium-1', { priority: 90 }), testInstance('backup-1', { priority: 50 }));
    const before = firstShare(router, q());
    expect(before.get('premium-1')!).toBeGreaterThan(0.55);
    router.recordOutcomes({ outcomes: [...failures('premium-1', 40), ...successes('backup-1', 40)] });
    const after = firstShare(router, q());
    expect(after.get('premium-1')!).toBeLessThan(0.3);
    expect(after.get('backup-1')!).toBeGreaterThan(0.7);
    const candidates = router.route(q()).candidates.map((c) => c.instance_id);
    expect(candidates).toContain('premium-1');
  });

  it('ramps a new instance from a small share to a full one over the warm-up', () => {
    const { source, clock, liveness, router } = setup({ warmupMs: 300_000, cacheTtlMs: 30_000 });
    source.put(testInstance('old-1', { agent: 'summarizer' }));
    liveness.set('new-1', { state: 'healthy', registeredAt: clock.now() });
    source.put(testInstance('new-1', { agent: 'summarizer', registeredAt: Date.now() }));
    const shares: number[] = [];
    for (let step = 0; step <= 6; step += 1) {
      shares.push(firstShare(router, q(), 1500).get('new-1') ?? 0);
      const warmup = router.route(q()).candidates.find((c) => c.instance_id === 'new-1')!.breakdown.warmup;
      expect(warmup).toBeCloseTo(Math.min(1, 0.1 + (0.9 * step) / 6));
      clock.advance(50_000);
    }
    expect(shares[0]!).toBeLessThan(0.15);
    expect(shares[6]!).toBeGreaterThan(0.4);
    expect(shares[3]!).toBeGreaterThan(shares[0]! + 0.1);
  });

  it('dates an instance liveness does not track from its record: registered long ago, no warm-up', () => {
    // (The liveness table dates what it tracks the same way at first sight: its own test.)
    const { source, liveness, router } = setup({ warmupMs: 300_000 });
    liveness.set('old-1', { state: 'healthy' });
    source.put(testInstance('old-1', { registeredAt: Date.now() - 3_600_000 }));
    expect(router.route(q()).candidates[0]!.breakdown.warmup).toBe(1);
  });

  it('routes a suspect instance last even when it scores higher, and notices a state change on cached answers', () => {
    const { source, liveness, router } = setup();
    source.put(testInstance('best-1', { priority: 100 }), testInstance('meh-1', { priority: 20 }));
    expect(router.route(q()).candidates.map((c) => c.state)).toEqual(['healthy', 'healthy']);
    expect(router.route(q()).cached).toBe(true);
    liveness.set('best-1', { state: 'suspect' });
    const answer = router.route(q());
    expect(answer.cached).toBe(false);
    expect(answer.candidates.map((c) => [c.instance_id, c.state])).toEqual([
      ['meh-1', 'healthy'],
      ['best-1', 'suspect'],
    ]);
    liveness.set('meh-1', { state: 'unavailable' });
    expect(router.route(q()).candidates.map((c) => c.instance_id)).toEqual(['best-1']);
  });

  it('returns only the top agent of a conflicting set, plus the agents not in conflict', () => {
    const { source, router } = setup({ random: () => 0.5 });
    source.put(
      testInstance('alpha-1', { agent: 'alpha' }),
      testInstance('alpha-2', { agent: 'alpha' }),
      testInstance('beta-1', { agent: 'beta' }),
      testInstance('gamma-1', { agent: 'gamma', priority: 40 }),
      testInstance('delta-1', { agent: 'delta', substitutable: true }),
    );
    router.recordOutcomes({ outcomes: failures('alpha-1', 3).concat(failures('alpha-2', 3, 10)) });
    const answer = router.route(q({ max_candidates: 10 }));
    expect(answer.conflict).toEqual({ agents: ['alpha', 'beta'], capability: 'summarize' });
    expect(answer.candidates.map((c) => c.agent_name).sort()).toEqual(['beta', 'delta', 'gamma']);
    expect(router.conflicts.list().map((c) => c.agents)).toEqual([['alpha', 'beta']]);
  });

  it('answers identical queries from the cache until a registration invalidates it, or the TTL runs out', () => {
    const { source, clock, router } = setup({ cacheTtlMs: 30_000 });
    source.put(testInstance('one-1', { agent: 'summarizer' }));
    expect(router.route(q()).cached).toBe(false);
    expect(router.route(q({ max_candidates: 1 })).cached).toBe(true);
    expect(router.route(q({ constraints: { input_size: 10 } })).cached).toBe(false);
    source.put(testInstance('two-1', { agent: 'summarizer' }));
    const fresh = router.route(q());
    expect(fresh.cached).toBe(false);
    expect(fresh.candidates.map((c) => c.instance_id).sort()).toEqual(['one-1', 'two-1']);
    clock.advance(29_000);
    expect(router.route(q()).cached).toBe(true);
    clock.advance(1_000);
    expect(router.route(q()).cached).toBe(false);
    source.remove('one-1');
    expect(router.route(q()).candidates.map((c) => c.instance_id)).toEqual(['two-1']);
    expect(router.stats().routes).toMatchObject({ total: 7, cached: 2 });
  });

  it('drops an instance’s cached answers when it reports a failure, and honours exclude', () => {
    const { source, router } = setup();
    source.put(testInstance('one-1'), testInstance('two-1', { substitutable: true }));
    router.route(q());
    router.recordOutcomes({ outcomes: successes('one-1', 1) });
    expect(router.route(q()).cached).toBe(true);
    router.recordOutcomes({ outcomes: failures('one-1', 1) });
    expect(router.route(q()).cached).toBe(false);
    expect(router.route(q({ exclude: ['one-1'] })).candidates.map((c) => c.instance_id)).toEqual(['two-1']);
    expect(router.route(q({ exclude: ['two'] })).candidates.map((c) => c.instance_id)).toEqual(['one-1']);
  });
});

describe('Router.routeJson', () => {
  it('is JSON.stringify(route()) byte for byte, with the same per-request draw, on hits and misses', () => {
    const put = (source: ReturnType<typeof setup>['source']) =>
      source.put(
        testInstance('alpha-1', { agent: 'alpha', priority: 90 }),
        testInstance('alpha-2', { agent: 'alpha', priority: 60 }),
        testInstance('beta-1', { agent: 'beta', priority: 90 }),
        testInstance('gamma-1', { agent: 'gamma', priority: 30, substitutable: true }),
        testInstance('delta-1', { agent: 'delta', priority: 70, substitutable: true }),
      );
    const objects = setup({ random: seededRandom(11) });
    const texts = setup({ random: seededRandom(11) });
    put(objects.source);
    put(texts.source);
    const queries = [
      q(),
      q({ max_candidates: 2 }),
      q(),
      q({ exclude: ['beta'] }),
      q({ max_candidates: 1 }),
      q(),
    ];
    const firsts = new Set<string>();
    for (let round = 0; round < 40; round += 1) {
      if (round === 20) {
        for (const { liveness } of [objects, texts]) liveness.set('delta-1', { state: 'suspect' });
      }
      for (const query of queries) {
        const expected = objects.router.route(query);
        const text = texts.router.routeJson(query);
        expect(text).toBe(JSON.stringify(expected));
        firsts.add(expected.candidates[0]!.instance_id);
      }
    }
    expect(texts.router.stats().routes).toEqual(objects.router.stats().routes);
    // The order is drawn per request even on cache hits, and the conflict is part of the cached answer.
    expect(firsts.size).toBeGreaterThan(1);
    expect(JSON.parse(texts.router.routeJson(q())).conflict).toEqual({
      agents: ['alpha', 'beta'],
      capability: 'summarize',
    });
  });
});

describe('Router.recordOutcomes and stats', () => {
  it('derives hit rate, fallback rate and retries per call from final outcomes', () => {
    const { source, router } = setup();
    source.put(testInstance('one-1'), testInstance('two-1'));
    const result = router.recordOutcomes({
      outcomes: [
        Outcome.parse({ instance_id: 'one-1', request_id: 'a', ok: true, latency_ms: 20, final: true }),
        Outcome.parse({
          instance_id: 'one-1',
          request_id: 'b',
          ok: false,
          failure: 'connect',
          latency_ms: 300,
        }),
        Outcome.parse({
          instance_id: 'two-1',
          request_id: 'b',
          ok: true,
          latency_ms: 40,
          attempt: 2,
          final: true,
        }),
        Outcome.parse({ instance_id: 'gone-1', request_id: 'c', ok: true, latency_ms: 1 }),
      ],
    });
    expect(result).toEqual({ accepted: 3, ignored: 1 });
    const stats = router.stats();
    expect(stats.calls).toMatchObject({ total: 2, hit_rate: 0.5, fallback_rate: 0.5, failed: 0 });
    expect(stats.calls.retries).toMatchObject({ '0': 1, '1': 1 });
    const one = stats.instances.find((i) => i.instance_id === 'one-1')!;
    expect(one).toMatchObject({ window: 2, failures: 1, state: 'healthy' });
    expect(one.success_rate).toBeCloseTo(10 / 12);
    expect(stats.instances.find((i) => i.instance_id === 'two-1')!.latency_ms).toEqual({
      p50: 40,
      p95: 40,
      mean: 40,
    });
  });
});
