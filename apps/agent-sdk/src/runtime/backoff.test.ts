import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF } from './backoff.js';

describe('backoffDelay', () => {
  it('doubles the ceiling from 200 ms and caps it at 5 s', () => {
    const top = () => 0.999_999;
    const ceilings = [0, 1, 2, 3, 4, 5, 6, 40].map((attempt) => backoffDelay(attempt, DEFAULT_BACKOFF, top));
    expect(ceilings).toEqual([199, 399, 799, 1599, 3199, 4999, 4999, 4999]);
  });

  it('draws uniformly below the ceiling (full jitter)', () => {
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0)).toBe(0);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.5)).toBe(800);
  });
});
