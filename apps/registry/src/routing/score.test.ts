import { Declaration, RouteQuery } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { loadFactor, matchQuality, priorityFactor, SCORE, warmupFactor } from './score.js';

const declaration = Declaration.parse({
  agent_name: 'summarizer-v2',
  domain: 'text_processing',
  capabilities: {
    summarize: { constraints: { max_tokens: 5000, response_time_sec: 2, output_formats: ['text', 'json'] } },
    classify: {},
  },
});
const summarize = declaration.capabilities.summarize!;
const classify = declaration.capabilities.classify!;
const query = (input: unknown) => RouteQuery.parse({ operation: 'summarize', ...(input as object) });

describe('matchQuality', () => {
  it('keeps an operation whose declared constraints satisfy the need (seed 2.2: 5,000 chars, < 2 s)', () => {
    const need = query({ domain: 'text_processing', constraints: { input_size: 5000, max_latency_sec: 2 } });
    expect(matchQuality(declaration, summarize, 'operation', need)).toBe(1);
  });

  it('drops another domain, too large an input, too slow an answer and a missing output format', () => {
    expect(matchQuality(declaration, summarize, 'operation', query({ domain: 'data_analysis' }))).toBeNull();
    expect(
      matchQuality(declaration, summarize, 'operation', query({ constraints: { input_size: 5001 } })),
    ).toBeNull();
    expect(
      matchQuality(declaration, summarize, 'operation', query({ constraints: { max_latency_sec: 1.5 } })),
    ).toBeNull();
    expect(
      matchQuality(declaration, summarize, 'operation', query({ constraints: { output_format: 'csv' } })),
    ).toBeNull();
    expect(
      matchQuality(declaration, summarize, 'operation', query({ constraints: { output_format: 'json' } })),
    ).toBe(1);
  });

  it('lets undeclared constraints pass at a discount, and rates a `serves` match below a name match', () => {
    const need = query({ constraints: { input_size: 10, max_latency_sec: 1, output_format: 'csv' } });
    expect(matchQuality(declaration, classify, 'operation', need)).toBeCloseTo(
      SCORE.undeclaredConstraint ** 3,
    );
    expect(matchQuality(declaration, summarize, 'serves', query({}))).toBe(SCORE.servesMatch);
  });
});

describe('factors', () => {
  it('ramps warm-up from the floor to 1 over the warm-up period, monotonically', () => {
    const warmup = 300_000;
    const values = [0, 60_000, 150_000, 299_999, 300_000, 10_000_000].map((age) => warmupFactor(age, warmup));
    expect(values[0]).toBeCloseTo(SCORE.warmupFloor);
    expect(values[2]).toBeCloseTo(0.55);
    expect(values[4]).toBe(1);
    expect(values[5]).toBe(1);
    for (let i = 1; i < values.length; i += 1) expect(values[i]!).toBeGreaterThanOrEqual(values[i - 1]!);
    expect(warmupFactor(-5, warmup)).toBeCloseTo(SCORE.warmupFloor);
  });

  it('treats priority as a weight with a floor, never a veto', () => {
    expect(priorityFactor(80)).toBeCloseTo(0.8);
    expect(priorityFactor(0)).toBe(SCORE.priorityFloor);
    expect(priorityFactor(100)).toBe(1);
  });

  it('lowers the load factor with in-flight work and more with a queue', () => {
    expect(loadFactor(undefined)).toBe(1);
    expect(loadFactor({ in_flight: 0, capacity: 4, queue: 0 })).toBe(1);
    expect(loadFactor({ in_flight: 4, capacity: 4, queue: 0 })).toBeCloseTo(0.5);
    expect(loadFactor({ in_flight: 4, capacity: 4, queue: 4 })).toBeCloseTo(0.25);
    expect(loadFactor({ in_flight: 1000, capacity: 1, queue: 1000 })).toBe(SCORE.loadFloor);
  });
});
