import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from './manual-clock.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ManualClock', () => {
  it('repeats `every` on monotonic time until stopped', () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    const stop = clock.every(1000, () => fired.push(clock.now()));
    clock.advance(3500);
    expect(fired).toEqual([1000, 2000, 3000]);
    stop();
    clock.advance(5000);
    expect(fired).toEqual([1000, 2000, 3000]);
  });

  it('keeps monotonic time apart from a faked wall clock', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const clock = new ManualClock(500);
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    expect(clock.wallNow()).toBe(Date.parse('2030-01-01T00:00:00Z'));
    vi.setSystemTime(new Date('2029-12-31T23:00:00Z'));
    expect(clock.now()).toBe(500);
  });
});
