/** A counting semaphore: at most `limit` holders at once, waiters served first come first served. */
export class Semaphore {
  readonly limit: number;
  #active = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`semaphore limit must be a positive integer`);
    this.limit = limit;
  }

  /** Holders right now. */
  get active(): number {
    return this.#active;
  }

  /** Callers waiting for a slot right now. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** Runs `fn` while holding a slot; the slot is released however `fn` ends. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.#acquire();
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #acquire(): Promise<void> {
    if (this.#active < this.limit) {
      this.#active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #release(): void {
    const next = this.#waiters.shift();
    // The slot passes straight to the next waiter, so `active` never dips and lets a newcomer in.
    if (next) next();
    else this.#active -= 1;
  }
}
