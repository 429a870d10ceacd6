import { performance } from 'node:perf_hooks';

/** An opaque timer handle returned by a clock's `setTimeout`. */
export type TimerHandle = unknown;

/** Cancels a timer started with {@link startTimer}. */
export type CancelTimer = () => void;

/**
 * Monotonic time plus timers, and the wall clock for display only; injected wherever a deadline
 * matters so tests move time instead of sleeping. The one clock of every app.
 */
export interface Clock {
  /** Monotonic milliseconds; never moves with NTP corrections or manual wall-clock changes. */
  now(): number;
  /** Wall-clock milliseconds since the epoch, for display only: never for a deadline. */
  wallNow(): number;
  /** Runs `fn` after `ms` milliseconds; the timer never keeps the process alive. */
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

/** Starts a timer on `clock` and returns the function that cancels it. */
export function startTimer(
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  fn: () => void,
  ms: number,
): CancelTimer {
  const handle = clock.setTimeout(fn, ms);
  return () => clock.clearTimeout(handle);
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
