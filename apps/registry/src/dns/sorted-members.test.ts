import { describe, expect, it } from 'vitest';
import { SortedMembers } from './sorted-members.js';

describe('SortedMembers', () => {
  it('keeps values in key order through inserts, replaces and deletes across chunk splits', () => {
    const members = new SortedMembers<number>();
    const model = new Map<string, number>();
    // A fixed pseudo-random order over 2,000 keys: several chunks of at most 256 split and empty.
    // (xorshift32 in 32-bit integers: an LCG in doubles lost its low bits and cycled over 238 keys,
    // so no chunk ever split.)
    let seed = 7;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
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
      // Every lookup finds its chunk, whatever the splits and emptied chunks so far.
      const probe = `k${(next() % 2001).toString().padStart(4, '0')}`;
      expect(members.get(probe)).toBe(model.get(probe));
      const updated = members.update(probe, (old) => old + 0.5);
      expect(updated).toBe(model.get(probe));
      if (updated !== undefined) model.set(probe, updated + 0.5);
    }
    const sorted = [...model.keys()].sort();
    expect(model.size).toBeGreaterThan(1000);
    expect(members.size).toBe(model.size);
    expect([...members.values()]).toEqual(sorted.map((key) => model.get(key)));
    expect(members.firstKey()).toBe(sorted[0]);
    for (const key of sorted) expect(members.get(key)).toBe(model.get(key));
    for (const key of sorted) members.delete(key);
    expect(members.size).toBe(0);
    expect([...members.values()]).toEqual([]);
  });
});
