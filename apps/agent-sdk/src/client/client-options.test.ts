import { describe, expect, it } from 'vitest';
import { compileClientOptions } from './client-options.js';

describe('compileClientOptions', () => {
  it('applies the seed defaults: 300 ms connect, 2 s ack, 30 s execution, 3 candidates, 20 % budget', () => {
    const options = compileClientOptions({});
    expect(options).toMatchObject({
      connectTimeoutMs: 300,
      ackTimeoutMs: 2000,
      executionTimeoutMs: 30_000,
      maxCandidates: 3,
      fallbackEnabled: true,
      retryBudget: { ratio: 0.2, minPerSecond: 3, maxTokens: 10 },
      outcomes: { flushIntervalMs: 1000, maxBatch: 100 },
    });
  });

  it('accepts durations as strings or milliseconds and names a bad option', () => {
    expect(compileClientOptions({ ackTimeout: '3s', connectTimeout: 150 })).toMatchObject({
      ackTimeoutMs: 3000,
      connectTimeoutMs: 150,
    });
    expect(() => compileClientOptions({ executionTimeout: '-1s' })).toThrow(/executionTimeout/);
    expect(() => compileClientOptions({ dns: { server: 'nowhere' } })).toThrow(/dns.server/);
    expect(() => compileClientOptions({ registryUrl: 'ftp://x' })).toThrow(/registryUrl/);
    expect(() => compileClientOptions({ retryBudget: { ratio: 2 } })).toThrow(/retryBudget.ratio/);
  });
});
