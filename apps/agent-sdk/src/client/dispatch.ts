import { type CallContext, type LaneResult, runFallbackChain, TargetQueue } from './fallback-chain.js';
import type { ReachTarget } from './reach-target.js';

/** How a call spreads over targets (seed article 4.3). */
export type DispatchMode = 'first_win' | 'all_must' | 'synthesize';

/** Lanes linked to the caller's signal, each cancellable on its own. */
function lanesFor(count: number, signal: AbortSignal | undefined): AbortController[] {
  return Array.from({ length: count }, () => {
    const controller = new AbortController();
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    return controller;
  });
}

/**
 * Races `k` fallback chains over the ranked targets and settles with the first success, aborting the
 * other lanes (their HTTP requests are destroyed, so the losing handlers see their abort signal).
 * Resolves with every lane's result once none can win.
 */
export function raceFirstWin(
  ctx: CallContext,
  targets: readonly ReachTarget[],
  k: number,
  signal: AbortSignal | undefined,
): Promise<{ winner: Extract<LaneResult, { ok: true }> | undefined; lanes: LaneResult[] }> {
  const queue = new TargetQueue(targets);
  const starts = Array.from({ length: Math.min(k, targets.length) }, () => queue.take()!);
  const controllers = lanesFor(starts.length, signal);
  return new Promise((resolve) => {
    const results: LaneResult[] = [];
    let settled = false;
    starts.forEach((first, index) => {
      void runFallbackChain(ctx, first, queue, controllers[index]!.signal).then((result) => {
        results[index] = result;
        if (result.ok && !settled) {
          settled = true;
          controllers.forEach((controller, other) => {
            if (other !== index) controller.abort(new Error('another target answered first'));
          });
          resolve({ winner: result, lanes: results });
          return;
        }
        if (!settled && results.filter(Boolean).length === starts.length) {
          settled = true;
          resolve({ winner: undefined, lanes: results });
        }
      });
    });
  });
}

/** Runs one fallback chain per selected target (the top `k`) to the end; spares back every lane up. */
export async function runAll(
  ctx: CallContext,
  targets: readonly ReachTarget[],
  k: number,
  signal: AbortSignal | undefined,
): Promise<LaneResult[]> {
  const queue = new TargetQueue(targets);
  const starts = Array.from({ length: Math.min(k, targets.length) }, () => queue.take()!);
  const controllers = lanesFor(starts.length, signal);
  return Promise.all(
    starts.map((first, index) => runFallbackChain(ctx, first, queue, controllers[index]!.signal)),
  );
}
