/** Exponential backoff bounds in milliseconds. */
export interface BackoffPolicy {
  /** First ceiling. @default 200 */
  initialMs: number;
  /** Largest ceiling. @default 5000 */
  maxMs: number;
}

/** The default registration backoff: 200 ms doubling to 5 s. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 200, maxMs: 5000 };

/**
 * The delay before retry number `attempt` (0-based): "full jitter", a uniform draw below a ceiling
 * that doubles each attempt, so many agents restarting together do not retry in lockstep.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
