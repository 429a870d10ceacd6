import { ManualClock } from '@agent-reach/sdk/testing';
import { describe, expect, it } from 'vitest';
import { LeaseTable } from './lease-table.js';

function table() {
  const clock = new ManualClock();
  const expired: string[][] = [];
  const leases = new LeaseTable(clock, (ids) => {
    expired.push(ids);
    for (const id of ids) leases.delete(id);
  });
  return { clock, leases, expired };
}

describe('LeaseTable', () => {
  it('expires a lease exactly at its deadline, through the timer', () => {
    const { clock, leases, expired } = table();
    leases.grant('1', 1_000);
    clock.advance(999);
    expect(expired).toEqual([]);
    expect(leases.isLive('1')).toBe(true);
    clock.advance(1);
    expect(expired).toEqual([['1']]);
    expect(leases.isLive('1')).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it('pushes the deadline back on touch, and refuses to touch an expired lease', () => {
    const { clock, leases, expired } = table();
    leases.grant('1', 1_000);
    clock.advance(800);
    expect(leases.touch('1')).toBe(1_000);
    clock.advance(800);
    expect(expired).toEqual([]);
    clock.advance(200);
    expect(expired).toEqual([['1']]);
    expect(leases.touch('1')).toBeNull();
    expect(leases.touch('unknown')).toBeNull();
  });

  it('expires every lease that is due in one batch', () => {
    const { clock, leases, expired } = table();
    leases.grant('a', 1_000);
    leases.grant('b', 1_000);
    leases.grant('c', 5_000);
    clock.advance(1_000);
    expect(expired).toEqual([['a', 'b']]);
    clock.advance(4_000);
    expect(expired).toEqual([['a', 'b'], ['c']]);
  });

  it('rearms for a shorter lease granted after a longer one', () => {
    const { clock, leases, expired } = table();
    leases.grant('long', 10_000);
    leases.grant('short', 500);
    clock.advance(500);
    expect(expired).toEqual([['short']]);
  });

  it('reports a lease whose deadline passed as gone even before its timer ran', () => {
    const clock = new ManualClock();
    const expired: string[] = [];
    const leases = new LeaseTable(clock, (ids) => {
      expired.push(...ids);
      for (const id of ids) leases.delete(id);
    });
    leases.grant('1', 1_000);
    leases.close(); // no timer: only the lazy check can see the deadline
    clock.advance(1_000);
    expect(leases.isLive('1')).toBe(false);
    expect(expired).toEqual(['1']);
  });

  it('tracks the keys bound to each lease, with their values', () => {
    const { leases } = table();
    leases.grant('1', 1_000);
    const lease = leases.bind('1', '/a', 'x')!;
    leases.bind('1', '/b', 'y');
    leases.bind('1', '/b', 'z');
    expect(leases.bind('2', '/c', 'w')).toBeUndefined();
    leases.unbind(lease, '/a');
    expect(leases.delete('1')?.bound).toEqual(['/b', 'z']);
    expect(leases.size).toBe(0);
  });
});
