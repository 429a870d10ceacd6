/** Cancels a timer made by a {@link Clock}. */
export type CancelTimer = () => void;

/** Monotonic time plus timers; injected so deadlines never read the wall clock and tests can move time. */
export interface Clock {
  /** Milliseconds on a monotonic scale (only differences mean anything). */
  now(): number;
  /** Runs `fn` after `ms` milliseconds; the timer never keeps the process alive. */
  setTimeout(fn: () => void, ms: number): CancelTimer;
}

/** The process clock: `performance.now()` and unref'd Node timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return () => clearTimeout(handle);
  },
};

/** Resolves after `ms` on `clock`, or at once when `signal` aborts (never rejects). */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      cancel();
      resolve();
    };
    const cancel = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Settles like `promise`, or rejects with `onTimeout()` if `ms` passes on `clock` first. */
export function withTimeout<T>(
  clock: Clock,
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const cancel = clock.setTimeout(() => reject(onTimeout()), ms);
    promise.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (error: unknown) => {
        cancel();
        reject(error);
      },
    );
  });
}
