import type { Clock } from '../clock/index.js';

/**
 * A token bucket shared by every retry and fallback of a client (Finagle's RetryBudget idea): each call
 * deposits `ratio` tokens (about 20 %), time adds `minPerSecond` so a quiet client can still retry,
 * and a retry spends one. An outage therefore multiplies load by at most 1 + ratio (plus the floor).
 */
export class RetryBudget {
  private tokens: number;
  private lastRefill: number;

  constructor(
    private readonly options: { ratio: number; minPerSecond: number; maxTokens: number },
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.tokens = options.maxTokens;
    this.lastRefill = clock.now();
  }

  /** Records one call (not a retry), earning `ratio` of a token. */
  deposit(): void {
    this.refill();
    this.tokens = Math.min(this.cap(), this.tokens + this.options.ratio);
  }

  /** Spends a token for one retry or fallback; false when the budget is exhausted. */
  tryWithdraw(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Tokens available now. */
  get available(): number {
    this.refill();
    return this.tokens;
  }

  private cap(): number {
    return Math.max(1, this.options.maxTokens);
  }

  private refill(): void {
    const now = this.clock.now();
    const elapsed = Math.max(0, now - this.lastRefill) / 1000;
    this.lastRefill = now;
    this.tokens = Math.min(this.cap(), this.tokens + elapsed * this.options.minPerSecond);
  }
}
