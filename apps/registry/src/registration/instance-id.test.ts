import { describe, expect, it } from 'vitest';
import { newInstanceId } from './instance-id.js';

describe('newInstanceId', () => {
  it('is the agent name, a dash and four hex digits: a DNS host label', () => {
    const id = newInstanceId('summarizer-v2', () => false);
    expect(id).toMatch(/^summarizer-v2-[0-9a-f]{4}$/);
    expect(id.length).toBeLessThanOrEqual(63);
  });

  it('never returns a taken id, and widens when four digits are exhausted', () => {
    const taken = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newInstanceId('a1', (candidate) => taken.has(candidate));
      expect(taken.has(id)).toBe(false);
      taken.add(id);
    }
    const wide = newInstanceId('a1', (candidate) => candidate.length === 'a1-0000'.length);
    expect(wide).toMatch(/^a1-[0-9a-f]{8}$/);
  });
});
