import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../testing/manual-clock.js';
import {
  behaviours,
  candidate,
  closedPort,
  fakeRegistry,
  startTestAgent,
  type TestAgent,
} from '../testing/test-agents.js';
import type { ReachClientOptions } from './client-options.js';
import { ReachClient } from './reach-client.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

const agents: TestAgent[] = [];
const clients: ReachClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

async function agent(behaviour: Parameters<typeof startTestAgent>[0]) {
  const started = await startTestAgent(behaviour);
  agents.push(started);
  return started;
}

function client(registry: ReturnType<typeof fakeRegistry>, options: Partial<ReachClientOptions> = {}) {
  const made = new ReachClient({
    registryUrl: 'http://registry.test',
    fetch: registry.fetch,
    ackTimeout: '400ms',
    executionTimeout: '500ms',
    ...options,
  });
  clients.push(made);
  return made;
}

const need = { operation: 'summarize', constraints: { input_size: 5000, max_latency_sec: 2 } };

describe('ReachClient fallback rules', () => {
  it('moves past every pre-ack failure class to the next candidate, same request_id and traceparent', async () => {
    const refused = await closedPort();
    const five = await agent(behaviours.status(503));
    const busy = await agent(behaviours.status(429, { code: 'OVERLOADED', message: 'busy' }));
    const crashed = await agent((x) => x.crash());
    const good = await agent(behaviours.answer({ summary: 'done' }));
    const registry = fakeRegistry(() => [
      candidate('refused-1', refused),
      candidate('five-1', five.port),
      candidate('busy-1', busy.port),
      candidate('crash-1', crashed.port),
      candidate('good-1', good.port, { idempotent: false }),
    ]);
    const reach = client(registry, { retryBudget: { maxTokens: 10 } });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const result = await reach.reach({
      need: { ...need, max_candidates: 5 },
      input: { text: 'x' },
      idempotent: false,
      requestId: 'call-1',
      traceparent,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.output).toEqual({ summary: 'done' });
    expect(result.value.attempts.map((a) => [a.instance_id, a.failure ?? 'ok', a.acked])).toEqual([
      ['refused-1', 'connect', false],
      ['five-1', 'http_5xx', false],
      ['busy-1', 'overloaded', false],
      ['crash-1', 'stream_broken', false],
      ['good-1', 'ok', true],
    ]);
    for (const a of [five, busy, crashed, good]) {
      expect(a.requests.map((r) => r.request_id)).toEqual(['call-1']);
      expect(a.traceparents).toEqual([traceparent]);
    }
    expect(good.requests[0]!.capability).toBe('summarize');
    await reach.close();
    expect(registry.outcomes().map((o) => [o.instance_id, o.failure ?? 'ok', o.attempt, o.final])).toEqual([
      ['refused-1', 'connect', 1, false],
      ['five-1', 'http_5xx', 2, false],
      ['busy-1', 'overloaded', 3, false],
      ['crash-1', 'stream_broken', 4, false],
      ['good-1', 'ok', 5, true],
    ]);
  });

  it('moves on from a socket that accepts and never acks within about 2.3 s (default timeouts)', async () => {
    const silent = await agent(behaviours.silent());
    const good = await agent(behaviours.answer('ok'));
    const registry = fakeRegistry(() => [candidate('silent-1', silent.port), candidate('good-1', good.port)]);
    const reach = client(registry, { ackTimeout: undefined, executionTimeout: undefined });
    const started = performance.now();
    const result = await reach.reach({ need, input: {}, idempotent: false });
    const elapsed = performance.now() - started;
    expect(result.ok && result.value.output).toBe('ok');
    expect(elapsed).toBeGreaterThanOrEqual(1990);
    // connect (immediate on loopback) + the 2 s ack timeout, with slack for a busy machine.
    expect(elapsed).toBeLessThan(2600);
  });

  it('never re-sends a non-idempotent request that failed after its ack (execution timeout, crash)', async () => {
    for (const behaviour of [behaviours.ackThenSilent(), behaviours.crashAfterAck()]) {
      const first = await agent(behaviour);
      const second = await agent(behaviours.answer('second'));
      const registry = fakeRegistry(() => [
        candidate('first-1', first.port),
        candidate('second-1', second.port),
      ]);
      const result = await client(registry).reach({ need, input: {}, idempotent: false });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(['TIMEOUT', 'UNAVAILABLE']).toContain(result.error.code);
      expect(result.error.data).toMatchObject({ failures: [{ instance_id: 'first-1', acked: true }] });
      expect(second.requests).toEqual([]);
    }
  });

  it('falls back after the ack for an idempotent request (declared by the caller or by the agent)', async () => {
    const first = await agent(behaviours.crashAfterAck());
    const second = await agent(behaviours.answer('second'));
    const registry = fakeRegistry(() => [
      candidate('first-1', first.port, { idempotent: true }),
      candidate('second-1', second.port),
    ]);
    const result = await client(registry).reach({ need, input: {}, requestId: 'same-id' });
    expect(result.ok && result.value.output).toBe('second');
    expect(second.requests.map((r) => r.request_id)).toEqual(['same-id']);
  });

  it('does not fall back when the agent calls its error final (retryable: false)', async () => {
    const first = await agent((x) => {
      x.ack();
      x.error('VALIDATION_FAILED', 'input rejected', false);
    });
    const second = await agent(behaviours.answer('second'));
    const registry = fakeRegistry(() => [
      candidate('first-1', first.port),
      candidate('second-1', second.port),
    ]);
    const result = await client(registry).reach({ need, input: {}, idempotent: true });
    expect(!result.ok && result.error.code).toBe('VALIDATION_FAILED');
    expect(second.requests).toEqual([]);
  });

  it('story 5.3: a long task with a correct deadline runs once and yields one result', async () => {
    // Scaled down: a 2.5 s task, a 0.5 s default execution timeout, the caller's deadline 3 s.
    const slow = await agent(behaviours.answer({ conclusion: 'A' }, 2500));
    const other = await agent(behaviours.answer({ conclusion: 'B' }));
    const registry = fakeRegistry(() => [candidate('slow-1', slow.port), candidate('other-1', other.port)]);
    const reach = client(registry, { executionTimeout: '500ms' });
    const result = await reach.reach({
      need,
      input: {},
      deadline: '3s',
      requestId: 'long-1',
    });
    expect(result.ok && result.value.output).toEqual({ conclusion: 'A' });
    expect(result.ok && result.value.results).toHaveLength(1);
    expect(slow.requests).toHaveLength(1);
    expect(slow.requests[0]!.deadline_ms).toBeGreaterThan(2900);
    expect(other.requests).toEqual([]);
  });

  it('reports a call that fails on every candidate with each failure, and NO_CANDIDATES for none', async () => {
    const a = await agent(behaviours.status(503));
    const registry = fakeRegistry((query) =>
      query.operation === 'summarize' ? [candidate('a-1', a.port)] : [],
    );
    const reach = client(registry);
    const failed = await reach.reach({ need, input: {} });
    expect(!failed.ok && failed.error.code).toBe('UNAVAILABLE');
    const none = await reach.reach({ need: { operation: 'translate' }, input: {} });
    expect(!none.ok && none.error.code).toBe('NO_CANDIDATES');
  });
});

describe('ReachClient route cache', () => {
  it('asks the registry once per need within the TTL, draws each call over every cached candidate', async () => {
    const a = await agent(behaviours.answer('a'));
    const b = await agent(behaviours.answer('b'));
    const registry = fakeRegistry(() => [candidate('a-1', a.port), candidate('b-1', b.port)]);
    const clock = new ManualClock();
    const reach = client(registry, { clock, outcomes: false, maxCandidates: 1, fallbackEnabled: false });
    const served: string[] = [];
    for (let i = 0; i < 40; i++) {
      const result = await reach.reach({ need, input: {} });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.value.route.candidates).toBe(1);
      expect(result.value.route.cached).toBe(i > 0);
      served.push(result.value.results[0]!.instance_id);
    }
    // One fill, asking for every candidate so cached calls can spread over all of them.
    expect(registry.queries.map((q) => q.max_candidates)).toEqual([20]);
    expect(new Set(served)).toEqual(new Set(['a-1', 'b-1']));
    // Another need is another entry; after the TTL the registry is asked again.
    await reach.reach({ need: { ...need, exclude: ['x'] }, input: {} });
    expect(registry.queries).toHaveLength(2);
    clock.advance(1000);
    await reach.reach({ need, input: {} });
    expect(registry.queries).toHaveLength(3);
  });

  it('drops the cached answer when an attempt on one of its instances fails', async () => {
    const refused = await closedPort();
    const good = await agent(behaviours.answer('ok'));
    const registry = fakeRegistry(() => [candidate('refused-1', refused), candidate('good-1', good.port)]);
    const clock = new ManualClock(); // the TTL never runs out here
    const reach = client(registry, { clock, outcomes: false, maxCandidates: 2, retryBudget: { ratio: 1 } });
    let failedOver = 0;
    let previousFailedOver = true; // the first call must ask: nothing is cached yet
    for (let i = 0; i < 30; i++) {
      const before = registry.queries.length;
      const call = await reach.reach({ need, input: {} });
      expect(call.ok).toBe(true);
      if (!call.ok) return;
      expect(registry.queries.length - before).toBe(previousFailedOver ? 1 : 0);
      previousFailedOver = call.value.attempts.length === 2;
      if (previousFailedOver) failedOver++;
    }
    expect(failedOver).toBeGreaterThan(0);
  });

  it('is off with routeCache: false (every call asks the registry)', async () => {
    const good = await agent(behaviours.answer('ok'));
    const registry = fakeRegistry(() => [candidate('good-1', good.port)]);
    const reach = client(registry, { outcomes: false, routeCache: false });
    for (let i = 0; i < 3; i++) await reach.reach({ need, input: {} });
    expect(registry.queries).toHaveLength(3);
    expect(registry.queries.every((q) => q.max_candidates === 3)).toBe(true);
  });
});

describe('ReachClient inputs and the registry', () => {
  it('rejects bad needs, request ids, deadlines and k with VALIDATION_FAILED, without calling anyone', async () => {
    const registry = fakeRegistry(() => []);
    const reach = client(registry);
    const bad = [
      { need: { operation: 'Not An Op' }, input: {} },
      { need: { operation: 'summarize', constraints: { input_size: -5 } }, input: {} },
      { need, input: {}, requestId: 'has spaces' },
      { need, input: {}, deadline: 'soon' },
      { need, input: {}, k: 0 },
    ];
    for (const request of bad) {
      const result = await reach.reach(request);
      expect(!result.ok && result.error.code).toBe('VALIDATION_FAILED');
    }
    expect(registry.queries).toEqual([]);
    expect(() => new ReachClient({ connectTimeout: 'fast' })).toThrow(/connectTimeout/);
  });

  it('passes the registry’s 4xx code through and asks for room for two fallbacks', async () => {
    const registry = fakeRegistry(() => ({
      status: 400,
      body: { code: 'VALIDATION_FAILED', message: 'nope' },
    }));
    const result = await client(registry, { routeCache: false }).reach({ need, input: {} });
    expect(!result.ok && result.error.code).toBe('VALIDATION_FAILED');
    expect(registry.queries[0]!.max_candidates).toBe(3);
  });

  it('reports outcomes in the background, batching them', async () => {
    const good = await agent(behaviours.answer('ok'));
    const registry = fakeRegistry(() => [candidate('good-1', good.port)]);
    // A hand-moved clock: the flush timer fires only when the test says so.
    const clock = new ManualClock();
    const reach = client(registry, { clock, outcomes: { flushInterval: '1s', maxBatch: 3 } });
    for (let i = 0; i < 4; i += 1) await reach.reach({ need, input: {} });
    await settle();
    expect(registry.outcomeBatches.map((batch) => batch.length)).toEqual([3]);
    clock.advance(1000);
    await settle();
    expect(registry.outcomeBatches.map((batch) => batch.length)).toEqual([3, 1]);
  });

  it('sends its registry token with outcome reports, and none without one', async () => {
    const good = await agent(behaviours.answer('ok'));
    const registry = fakeRegistry(() => [candidate('good-1', good.port)]);
    const seen: Array<string | null> = [];
    const watching: typeof fetch = (input, init) => {
      if (String(input).endsWith('/v1/outcomes')) seen.push(new Headers(init?.headers).get('authorization'));
      return registry.fetch(input, init);
    };
    const withToken = client(registry, { fetch: watching, registryToken: 'caller-token-0001' });
    await withToken.reach({ need, input: {} });
    await withToken.close();
    const without = client(registry, { fetch: watching });
    await without.reach({ need, input: {} });
    await without.close();
    expect(seen).toEqual(['Bearer caller-token-0001', null]);
  });
});
