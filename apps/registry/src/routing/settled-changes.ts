import type { Clock, TimerHandle } from '@agent-reach/sdk/clock';

/** How long weight changes are gathered before the zone hears of them, and in what portions. */
export interface SettleOptions {
  /** Hand the gathered ids on once no new change arrived for this long. @default 50 */
  quietMs?: number;
  /** ...or at the latest this long after the first of them, even if changes keep arriving. @default 500 */
  maxWaitMs?: number;
  /** Most ids handed on in one turn of the event loop; the rest follow in later turns. @default 64 */
  sliceSize?: number;
}

/** A batching listener: `add` gathers ids, `flush` starts handing them on now, `close` drops what is pending. */
export interface SettledChanges {
  add(ids: readonly string[]): void;
  flush(): void;
  close(): void;
}

/** Lets queued DNS queries and HTTP requests run between two slices. */
const nextTurn = (fn: () => void): void => {
  setImmediate(fn);
};

/**
 * Gathers the instance ids of weight changes that arrive close together and hands them to `listener`
 * in few lists. The leader writes a warm-up cohort's weights in several commits, one after another;
 * each arrives as its own watch batch, and each zone change bumps the serial and drops cached answers.
 * Handed on together, a pass costs few zone changes. Weights are advisory and republished every few
 * seconds, so holding them back for `quietMs` (at most `maxWaitMs`) changes nothing a caller can rely
 * on; registrations do not pass through here and stay visible at once. A gathered list is handed on
 * `sliceSize` ids per turn of the event loop: patching the zone costs ~10-40 µs per instance at 100,000
 * instances on a busy machine, and 5,000 ids in one call held DNS answers for ~100 ms.
 */
export function settledChanges(
  clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>,
  listener: (ids: string[]) => void,
  options: SettleOptions = {},
): SettledChanges {
  const quietMs = options.quietMs ?? 50;
  const maxWaitMs = Math.max(quietMs, options.maxWaitMs ?? 500);
  const sliceSize = Math.max(1, options.sliceSize ?? 64);
  const pending = new Set<string>();
  let firstAt = 0;
  let timer: TimerHandle | undefined;
  // Ids being handed on, slice by slice, and where the next slice starts.
  let handing: string[] = [];
  let next = 0;
  let closed = false;

  const cancel = (): void => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const handSlice = (): void => {
    if (closed || next >= handing.length) return;
    const slice = handing.slice(next, next + sliceSize);
    next += slice.length;
    if (next < handing.length) nextTurn(handSlice);
    else {
      handing = [];
      next = 0;
    }
    listener(slice);
  };
  const flush = (): void => {
    cancel();
    if (pending.size === 0) return;
    const idle = next >= handing.length;
    // Still handing an earlier list: the new ids join its tail (one may come twice; re-patching changes nothing).
    if (idle) {
      handing = [...pending];
      next = 0;
    } else handing.push(...pending);
    pending.clear();
    if (idle) handSlice();
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
      closed = true;
      cancel();
      pending.clear();
      handing = [];
      next = 0;
    },
  };
}
