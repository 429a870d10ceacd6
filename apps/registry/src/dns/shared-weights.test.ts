import { describe, expect, it } from 'vitest';
import { SharedWeights } from './shared-weights.js';

const weights = (priority: number, weight: number, byCapability: Record<string, number> = {}) => ({
  generic: { priority, weight },
  byCapability: Object.fromEntries(
    Object.entries(byCapability).map(([capability, w]) => [capability, { priority, weight: w }]),
  ),
});

describe('SharedWeights', () => {
  it('hands out one object for equal weights, and keeps unequal ones apart', () => {
    const shared = new SharedWeights();
    const first = shared.intern(weights(10, 50, { plan: 20 }));
    expect(shared.intern(structuredClone(first))).toBe(first);
    const other = weights(10, 50, { plan: 21 });
    expect(shared.intern(other)).toBe(other);
    const renamed = weights(10, 50, { summarize: 20 });
    expect(shared.intern(renamed)).toBe(renamed);
    // A capability name that looks like the numbers around it does not collide.
    const odd = weights(10, 50, { '1 2': 3 });
    expect(shared.intern(odd)).toBe(odd);
    expect(shared.intern(weights(10, 50))).not.toBe(first);
  });
});
