import { describe, expect, it } from 'vitest';
import { SortedMembers } from './sorted-members.js';

describe('SortedMembers', () => {
  it('keeps values in key order through inserts, replaces and deletes across chunk splits', () => {
    const members = new SortedMembers<number>();
    const model = new Map<string, number>();
    // A fixed pseudo-random order over 2,000 keys: several chunks of at most 256 split and empty.
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let step = 0; step < 6000; step++) {
      const key = `k${(next() % 2000).toString().padStart(4, '0')}`;
      if (next() % 3 === 0) {
        expect(members.delete(key)).toBe(model.get(key));
        model.delete(key);
      } else {
        expect(members.set(key, step)).toBe(model.get(key));
        model.set(key, step);
      }
    }
    const sorted = [...model.keys()].sort();
    expect(members.size).toBe(model.size);
    expect([...members.values()]).toEqual(sorted.map((key) => model.get(key)));
    expect(members.firstKey()).toBe(sorted[0]);
    for (const key of sorted) expect(members.get(key)).toBe(model.get(key));
    for (const key of sorted) members.delete(key);
    expect(members.size).toBe(0);
    expect([...members.values()]).toEqual([]);
  });
});
