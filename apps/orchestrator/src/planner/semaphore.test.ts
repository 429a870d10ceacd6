import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('Semaphore', () => {
  it('never lets more than the limit run at once and serves waiters in order', async () => {
    const sem = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const jobs = [0, 1, 2, 3, 4].map((i) =>
      sem.run(async () => {
        running += 1;
        peak = Math.max(peak, running);
        order.push(i);
        await new Promise<void>((r) => releases.push(r));
        running -= 1;
      }),
    );
    await tick();
    expect(order).toEqual([0, 1]);
    expect(sem.waiting).toBe(3);
    // Finish one job at a time; each finish must let exactly the next waiter in.
    for (let next = 2; next < 5; next += 1) {
      releases.shift()!();
      await tick();
      expect(order).toEqual([0, 1, 2, 3, 4].slice(0, next + 1));
    }
    for (const release of releases) release();
    await Promise.all(jobs);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(sem.active).toBe(0);
  });

  it('releases the slot when the job throws', async () => {
    const sem = new Semaphore(1);
    await expect(sem.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(sem.active).toBe(0);
    await expect(sem.run(async () => 7)).resolves.toBe(7);
  });

  it('rejects a non-positive limit', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
