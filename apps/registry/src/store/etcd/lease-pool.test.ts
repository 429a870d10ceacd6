import { describe, expect, it } from 'vitest';
import { LeasePool } from './lease-pool.js';

/** A pool over a fake etcd: grants resolve when `settle()` is called, the clock moves by hand. */
function fakePool(options: { failGrants?: boolean } = {}) {
  let clock = 0;
  let next = 1;
  const pending: Array<() => void> = [];
  const granted: string[] = [];
  const refreshed: string[] = [];
  const errors: unknown[] = [];
  const pool = new LeasePool({
    grant: (ttlSeconds) =>
      new Promise<string>((resolve, reject) => {
        const id = `${ttlSeconds}s-${next++}`;
        pending.push(() => {
          if (options.failGrants) reject(new Error('etcd down'));
          else {
            granted.push(id);
            resolve(id);
          }
        });
      }),
    refresh: async (lease) => {
      refreshed.push(lease);
      return 15;
    },
    onError: (error) => errors.push(error),
    now: () => clock,
  });
  return {
    pool,
    granted,
    refreshed,
    errors,
    advance: (ms: number) => {
      clock += ms;
    },
    /** Answers every grant asked so far and lets their callbacks run. */
    settle: async () => {
      for (const answer of pending.splice(0)) answer();
      await new Promise((resolve) => setImmediate(resolve));
    },
    grantsAsked: () => next - 1,
  };
}

describe('LeasePool', () => {
  it('grants a lone request its own lease and keeps no spare', async () => {
    const f = fakePool();
    const taking = f.pool.take(15);
    await f.settle();
    expect(await taking).toBe('15s-1');
    f.advance(10_000);
    const again = f.pool.take(15);
    await f.settle();
    expect(await again).toBe('15s-2');
    expect(f.grantsAsked()).toBe(2);
    expect(f.pool.readyCount).toBe(0);
  });

  it('under a burst keeps leases ready, so later requests do not wait for a grant', async () => {
    const f = fakePool();
    const first = [f.pool.take(15), f.pool.take(15), f.pool.take(15)];
    await f.settle();
    await Promise.all(first);
    // The two requests that found the pool empty soon after another each asked for one more.
    expect(f.pool.readyCount).toBe(2);
    f.advance(5);
    const quick = f.pool.take(15);
    // Resolved without any grant being answered: it came from the pool, and a replacement is on the way.
    expect(await quick).toBe('15s-2');
    expect(f.grantsAsked()).toBe(6);
    expect(f.refreshed).toEqual([]);
  });

  it('refreshes a lease that waited longer than freshMs as it hands it out', async () => {
    const f = fakePool();
    await Promise.all([f.pool.take(15), f.pool.take(15), f.settle()]);
    await f.settle();
    expect(f.pool.readyCount).toBe(1);
    f.advance(200);
    const lease = await f.pool.take(15);
    expect(f.refreshed).toEqual([lease]);
  });

  it('never hands out a lease older than maxAgeMs, and stops wanting the leases that went stale', async () => {
    const f = fakePool();
    await Promise.all([f.pool.take(15), f.pool.take(15), f.settle()]);
    await f.settle();
    expect(f.pool.readyCount).toBe(1);
    f.advance(600);
    const taking = f.pool.take(15);
    await f.settle();
    // The stale lease was dropped (it expires in etcd unused); this request got a grant of its own.
    expect(await taking).toBe('15s-4');
    expect(f.pool.readyCount).toBe(0);
    expect(f.grantsAsked()).toBe(4);
  });

  it('keeps separate leases per TTL', async () => {
    const f = fakePool();
    await Promise.all([f.pool.take(15), f.pool.take(15), f.settle()]);
    await f.settle();
    const other = f.pool.take(30);
    await f.settle();
    expect(await other).toMatch(/^30s-/);
    expect(f.pool.readyCount).toBe(1);
  });

  it('reports a failed grant made ahead of need; requests then grant their own', async () => {
    const f = fakePool({ failGrants: true });
    const failed = [
      expect(f.pool.take(15)).rejects.toThrow('etcd down'),
      expect(f.pool.take(15)).rejects.toThrow('etcd down'),
    ];
    await f.settle();
    await Promise.all(failed);
    expect(f.errors).toHaveLength(1);
    expect(f.pool.readyCount).toBe(0);
  });

  it('stops granting ahead once closed', async () => {
    const f = fakePool();
    const first = [f.pool.take(15), f.pool.take(15)];
    f.pool.close();
    await f.settle();
    await Promise.all(first);
    expect(f.pool.readyCount).toBe(0);
    const later = f.pool.take(15);
    await f.settle();
    expect(await later).toMatch(/^15s-/);
    expect(f.pool.readyCount).toBe(0);
  });
});
