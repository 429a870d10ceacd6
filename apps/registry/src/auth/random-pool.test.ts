import { describe, expect, it } from 'vitest';
import { randomBytesPooled } from './random-pool.js';

describe('randomBytesPooled', () => {
  it('hands out distinct slices that survive refills', () => {
    const first = randomBytesPooled(32);
    const copy = Buffer.from(first);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(randomBytesPooled(32).toString('hex'));
    expect(seen.size).toBe(2000);
    expect(first.equals(copy)).toBe(true);
    expect(randomBytesPooled(10_000)).toHaveLength(10_000);
  });
});
