import { performance } from 'node:perf_hooks';

/** An opaque timer handle returned by a clock's `setTimeout`. */
export type TimerHandle = unknown;

/**
 * Monotonic time plus timers, and the wall clock for display only. A superset of the embedded
 * store's clock, so one manual clock drives both in tests.
 */
export interface Clock {
  /** Monotonic milliseconds; never moves with NTP corrections or manual wall-clock changes. */
  now(): number;
  /** Wall-clock milliseconds since the epoch, for display only: never for a deadline. */
  wallNow(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /** Calls `fn` every `ms` milliseconds until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

/** Calls `fn` every `ms` on `timers` until the returned function is called. */
export function repeatEvery(timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>, ms: number, fn: () => void) {
  let handle: TimerHandle;
  let stopped = false;
  const schedule = () => {
    handle = timers.setTimeout(() => {
      if (stopped) return;
      schedule();
      fn();
    }, ms);
  };
  schedule();
  return (): void => {
    stopped = true;
    timers.clearTimeout(handle);
  };
}

/** The process clock: `performance.now()`, `Date.now()` and Node timers that never keep the process alive. */
export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  every: (ms, fn) => repeatEvery(systemClock, ms, fn),
};
