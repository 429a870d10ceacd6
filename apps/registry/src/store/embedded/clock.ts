import { performance } from 'node:perf_hooks';

/** An opaque timer handle returned by a clock's `setTimeout`. */
export type TimerHandle = unknown;

/** Monotonic time plus timers, injected wherever a deadline matters. */
export interface Clock {
  /** Monotonic milliseconds; never goes back, unrelated to wall-clock time. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The process clock: `performance.now()` and Node timers that never keep the process alive. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
