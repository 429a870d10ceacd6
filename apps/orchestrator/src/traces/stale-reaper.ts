import type { TraceStore } from './trace-store.js';

/** Reaper settings (seed 2.9: 300 s without an event). */
export interface StaleReaperOptions {
  staleAfterMs: number;
  intervalMs: number;
  /** Called with the ids each sweep aborted. */
  onReaped?: (ids: string[]) => void;
  onError?: (error: unknown) => void;
}

/**
 * Aborts running traces with no event for `staleAfterMs`: once at once, then every `intervalMs`.
 * Returns a function that stops the timer; the first sweep's promise is `ready`.
 */
export function startStaleReaper(
  store: Pick<TraceStore, 'reapStale'>,
  options: StaleReaperOptions,
): { ready: Promise<void>; stop: () => void } {
  let stopped = false;
  let sweeping: Promise<void> = Promise.resolve();
  const sweep = (): Promise<void> => {
    sweeping = store
      .reapStale(options.staleAfterMs)
      .then((ids) => {
        if (ids.length > 0) options.onReaped?.(ids);
      })
      .catch((error) => options.onError?.(error));
    return sweeping;
  };
  const ready = sweep();
  const timer = setInterval(() => {
    if (!stopped) void sweep();
  }, options.intervalMs);
  timer.unref();
  return {
    ready,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
