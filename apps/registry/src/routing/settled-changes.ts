import type { Clock, TimerHandle } from '@agent-reach/sdk/clock';

/** How long weight changes are gathered before the zone hears of them. */
export interface SettleOptions {
  /** Hand the gathered ids on once no new change arrived for this long. @default 50 */
  quietMs?: number;
  /** ...or at the latest this long after the first of them, even if changes keep arriving. @default 500 */
  maxWaitMs?: number;
}

/** A batching listener: `add` gathers ids, `flush` hands them on now, `close` drops what is pending. */
export interface SettledChanges {
  add(ids: readonly string[]): void;
  flush(): void;
  close(): void;
}

/**
 * Gathers the instance ids of weight changes that arrive close together and hands them to `listener`
 * as one list. The leader writes a warm-up cohort's weights in several commits, one after another;
 * each arrives as its own watch batch, and each zone change rebuilds the zone's lookup snapshot and
 * empties the DNS answer cache (about 5 ms for 1,000 instances). Handed on together, a whole weight
 * pass costs one rebuild. Weights are advisory and republished every few seconds, so holding them
 * back for `quietMs` (at most `maxWaitMs`) changes nothing a caller can rely on; registrations do not
 * pass through here and stay visible at once.
 */
export function settledChanges(
  clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>,
  listener: (ids: string[]) => void,
  options: SettleOptions = {},
): SettledChanges {
  const quietMs = options.quietMs ?? 50;
  const maxWaitMs = Math.max(quietMs, options.maxWaitMs ?? 500);
  const pending = new Set<string>();
  let firstAt = 0;
  let timer: TimerHandle | undefined;

  const cancel = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const flush = (): void => {
    cancel();
    if (pending.size === 0) return;
    const ids = [...pending];
    pending.clear();
    listener(ids);
  };

  return {
    add(ids) {
      if (ids.length === 0) return;
      if (pending.size === 0) firstAt = clock.now();
      for (const id of ids) pending.add(id);
      cancel();
      const wait = Math.min(quietMs, firstAt + maxWaitMs - clock.now());
      if (wait <= 0) flush();
      else timer = clock.setTimeout(flush, wait);
    },
    flush,
    close() {
      cancel();
      pending.clear();
    },
  };
}
