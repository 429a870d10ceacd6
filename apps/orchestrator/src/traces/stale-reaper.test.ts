import { describe, expect, it } from 'vitest';
import { startStaleReaper } from './stale-reaper.js';

describe('startStaleReaper', () => {
  it('sweeps at once and then every interval, with the stale threshold', async () => {
    const calls: number[] = [];
    const reaped: string[][] = [];
    const store = {
      reapStale: async (olderThanMs?: number) => {
        calls.push(olderThanMs!);
        return calls.length === 1 ? ['a'.repeat(32)] : [];
      },
    };
    const reaper = startStaleReaper(store, {
      staleAfterMs: 300_000,
      intervalMs: 30,
      onReaped: (ids) => reaped.push(ids),
    });
    await reaper.ready;
    expect(calls).toEqual([300_000]);
    expect(reaped).toEqual([['a'.repeat(32)]]);
    await new Promise((r) => setTimeout(r, 100));
    reaper.stop();
    const after = calls.length;
    expect(after).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 80));
    expect(calls.length).toBe(after);
  });

  it('reports a failed sweep instead of throwing', async () => {
    const errors: unknown[] = [];
    const reaper = startStaleReaper(
      { reapStale: async () => Promise.reject(new Error('db down')) },
      { staleAfterMs: 1000, intervalMs: 10_000, onError: (e) => errors.push(e) },
    );
    await reaper.ready;
    reaper.stop();
    expect(String(errors[0])).toContain('db down');
  });
});
