/** What a paced load did: calls that succeeded, failed, or were never sent because too many were out. */
export interface PacedResult {
  ok: number;
  failed: number;
  /** Not sent: `maxInFlight` calls were already waiting (the server fell behind the offered rate). */
  skipped: number;
  /** Not sent: the call had nothing to act on (it resolved `'none'`, e.g. nobody left to deregister). */
  none: number;
  /** Successful calls per second over the run. */
  perSec: number;
  /** The first few failure messages, for the figure's name or an error. */
  errors: string[];
}

/**
 * Offers `ratePerSec` calls of `call(i)` for `seconds`, open loop (every 10 ms a tick sends its share
 * without waiting for earlier calls), so a slow server shows as failures or skips, not as a lower rate.
 */
export async function paced(
  ratePerSec: number,
  seconds: number,
  call: (i: number) => Promise<boolean | 'none'>,
  maxInFlight = 512,
): Promise<PacedResult> {
  const result: PacedResult = { ok: 0, failed: 0, skipped: 0, none: 0, perSec: 0, errors: [] };
  if (ratePerSec <= 0) return result;
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  let sent = 0;
  let i = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * ratePerSec);
    while (sent < due) {
      sent++;
      if (pending.size >= maxInFlight) {
        result.skipped++;
        continue;
      }
      const one = call(i++).then(
        (ok) => {
          if (ok === 'none') result.none++;
          else if (ok) result.ok++;
          else result.failed++;
        },
        (error: unknown) => {
          result.failed++;
          if (result.errors.length < 3) result.errors.push(String(error));
        },
      );
      const tracked = one.finally(() => pending.delete(tracked));
      pending.add(tracked);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(pending);
  result.perSec = result.ok / ((performance.now() - started) / 1000);
  return result;
}
