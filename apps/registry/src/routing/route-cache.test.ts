import { RouteQuery } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { describe, expect, it } from 'vitest';
import { RouteCache, routeCacheKey } from './route-cache.js';

describe('routeCacheKey', () => {
  it('is the same for equivalent queries and differs when anything that filters differs', () => {
    const key = (input: object) => routeCacheKey(RouteQuery.parse({ operation: 'summarize', ...input }));
    expect(key({ exclude: ['b', 'a'], max_candidates: 1 })).toBe(
      key({ exclude: ['a', 'b'], max_candidates: 5 }),
    );
    const base = key({});
    for (const variant of [
      { domain: 'x' },
      { operation: 'translate' },
      { constraints: { input_size: 1 } },
      { constraints: { max_latency_sec: 1 } },
      { constraints: { output_format: 'json' } },
      { exclude: ['a'] },
    ]) {
      expect(key(variant)).not.toBe(base);
    }
  });
});

describe('RouteCache', () => {
  it('expires entries after the TTL and evicts the oldest beyond the limit', () => {
    const clock = new ManualClock();
    const cache = new RouteCache<string>({ ttlMs: 1000, clock, maxEntries: 2 });
    cache.set('a', 'A', []);
    clock.advance(999);
    expect(cache.get('a')).toEqual({ value: 'A', ageMs: 999 });
    clock.advance(1);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'A', []);
    cache.set('b', 'B', []);
    cache.set('c', 'C', []);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('drops just the answers that included an invalidated instance', () => {
    const cache = new RouteCache<string>({ ttlMs: 1000, clock: new ManualClock() });
    cache.set('q1', 'one', ['i1', 'i2']);
    cache.set('q2', 'two', ['i2']);
    cache.set('q3', 'three', ['i3']);
    cache.invalidateInstance('i1');
    expect(cache.get('q1')).toBeUndefined();
    expect(cache.get('q2')?.value).toBe('two');
    cache.invalidateInstance('i2');
    expect(cache.get('q2')).toBeUndefined();
    cache.invalidateAll();
    expect(cache.size).toBe(0);
  });

  it('keeps answers stored after an invalidation, and checks older ones only against newer stamps', () => {
    const cache = new RouteCache<string>({ ttlMs: 1000, clock: new ManualClock() });
    cache.set('old', 'o', ['i1', 'i2']);
    cache.set('other', 'x', ['i3']);
    cache.invalidateInstance('i1');
    cache.set('new', 'n', ['i1']);
    expect(cache.get('new')?.value).toBe('n');
    expect(cache.get('other')?.value).toBe('x');
    expect(cache.get('other')?.value).toBe('x');
    expect(cache.get('old')).toBeUndefined();
    cache.invalidateInstance('i3');
    expect(cache.get('new')?.value).toBe('n');
    expect(cache.get('other')).toBeUndefined();
    cache.invalidateInstance('i1');
    expect(cache.get('new')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
