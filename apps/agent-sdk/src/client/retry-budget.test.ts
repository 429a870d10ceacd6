import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../testing/manual-clock.js';
import {
  behaviours,
  candidate,
  fakeRegistry,
  startTestAgent,
  type TestAgent,
} from '../testing/test-agents.js';
import { ReachClient } from './reach-client.js';
import { RetryBudget } from './retry-budget.js';

describe('RetryBudget', () => {
  it('earns a share of a token per call, refills at the floor rate, and caps at maxTokens', () => {
    const clock = new ManualClock();
    const budget = new RetryBudget({ ratio: 0.2, minPerSecond: 3, maxTokens: 10 }, clock);
    for (let i = 0; i < 10; i += 1) expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(false);
    for (let i = 0; i < 5; i += 1) budget.deposit();
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(false);
    clock.advance(1000);
    expect(budget.available).toBeCloseTo(3);
    clock.advance(60_000);
    expect(budget.available).toBe(10);
  });
});

describe('retries and fallbacks share the budget', () => {
  const agents: TestAgent[] = [];
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close()));
  });

  it('caps fallbacks during an outage to the budget instead of multiplying load', async () => {
    const down = await Promise.all(Array.from({ length: 5 }, () => startTestAgent(behaviours.status(503))));
    agents.push(...down);
    const registry = fakeRegistry(() => down.map((a, i) => candidate(`down-${i}`, a.port)));
    const clock = new ManualClock();
    const reach = new ReachClient({
      registryUrl: 'http://registry.test',
      fetch: registry.fetch,
      clock,
      retryBudget: { ratio: 0.2, minPerSecond: 3, maxTokens: 4 },
      outcomes: false,
    });
    const calls = 40;
    let exhausted = 0;
    for (let i = 0; i < calls; i += 1) {
      const result = await reach.reach({ need: { operation: 'summarize', max_candidates: 5 }, input: {} });
      expect(result.ok).toBe(false);
      if (!result.ok && (result.error.data as { budget_exhausted: boolean }).budget_exhausted) exhausted += 1;
    }
    const sent = down.reduce((sum, a) => sum + a.requests.length, 0);
    // Without a budget: 40 calls x 5 candidates = 200 requests. With it: 40 + 4 tokens + 0.2 per call.
    expect(sent).toBeLessThanOrEqual(calls + 4 + calls * 0.2);
    expect(sent).toBeGreaterThan(calls);
    expect(exhausted).toBeGreaterThan(20);
    await reach.close();
  });
});
