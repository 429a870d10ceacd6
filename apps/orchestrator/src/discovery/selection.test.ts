import { describe, expect, it } from 'vitest';
import { orderCandidates } from './selection.js';

const c = (id: string, priority: number, weight: number) => ({ id, priority, weight });

describe('orderCandidates (priority_then_weighted_random)', () => {
  it('puts every candidate of the best priority before any worse one', () => {
    const list = [c('slow', 20, 100), c('a', 10, 1), c('b', 10, 1), c('later', 30, 50)];
    for (let i = 0; i < 50; i++) {
      const order = orderCandidates(list).map((x) => x.id);
      expect(new Set(order.slice(0, 2))).toEqual(new Set(['a', 'b']));
      expect(order.slice(2)).toEqual(['slow', 'later']);
    }
  });

  it('draws by weight inside a priority group', () => {
    const list = [c('heavy', 10, 90), c('light', 10, 10)];
    let heavy = 0;
    let seed = 1;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return (seed - 1) / 2147483646;
    };
    for (let i = 0; i < 2000; i++) if (orderCandidates(list, random)[0]!.id === 'heavy') heavy++;
    expect(heavy / 2000).toBeGreaterThan(0.85);
    expect(heavy / 2000).toBeLessThan(0.95);
  });

  it('follows a pinned draw exactly', () => {
    const list = [c('a', 1, 1), c('b', 1, 1), c('c', 1, 2)];
    expect(orderCandidates(list, () => 0.99).map((x) => x.id)).toEqual(['c', 'b', 'a']);
    expect(orderCandidates(list, () => 0).map((x) => x.id)).toEqual(['a', 'b', 'c']);
  });

  it('still orders a group whose weights are all zero', () => {
    expect(orderCandidates([c('a', 1, 0), c('b', 1, 0)], () => 0.7).map((x) => x.id)).toEqual(['b', 'a']);
  });
});
