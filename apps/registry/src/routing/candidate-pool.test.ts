import { describe, expect, it } from 'vitest';
import { testInstance } from '../testing/routing-instances.js';
import { CandidatePool } from './candidate-pool.js';
import type { IndexedOperation } from './operation-index.js';

const record = testInstance('one-1');
const offer = (): IndexedOperation => ({
  record,
  operation: 'summarize',
  spec: record.declaration.capabilities.summarize!,
  via: 'operation',
});
const factors = { match: 1, health: 1, success_rate: 0.9, load: 1, warmup: 1, priority: 0.5 };

describe('CandidatePool', () => {
  it('hands back the same candidate while state and factors hold, and a new one when any changes', () => {
    const pool = new CandidatePool();
    const served = offer();
    const first = pool.candidate(served, 'healthy', { ...factors }, 0.45);
    expect(first).toMatchObject({
      instance_id: 'one-1',
      operation: 'summarize',
      idempotent: true,
      score: 0.45,
    });
    expect(pool.candidate(served, 'healthy', { ...factors }, 0.45)).toBe(first);
    const slower = pool.candidate(served, 'healthy', { ...factors, load: 0.5 }, 0.225);
    expect(slower).not.toBe(first);
    expect(slower.breakdown.load).toBe(0.5);
    expect(pool.candidate(served, 'suspect', { ...factors, load: 0.5 }, 0.225)).not.toBe(slower);
    // A rebuilt index brings new offer objects: nothing carries over.
    expect(pool.candidate(offer(), 'healthy', { ...factors }, 0.45)).not.toBe(first);
  });

  it('serialises a candidate exactly as JSON.stringify does, on first and later asks', () => {
    const pool = new CandidatePool();
    const candidate = pool.candidate(offer(), 'healthy', { ...factors }, 0.45);
    const text = pool.json(candidate);
    expect(text).toBe(JSON.stringify(candidate));
    expect(pool.json(candidate)).toBe(text);
  });
});
