import { type Clock, repeatEvery, type TimerHandle } from '../clock/index.js';

interface PendingTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A clock that moves only when told to, so tests move time instead of sleeping. Its wall clock is
 * `Date.now()` (so faked dates apply) unless `wallMs` is given: then it starts there and moves with
 * `advance`.
 */
export class ManualClock implements Clock {
  readonly #start: number;
  readonly #wallStart: number | undefined;
  #now: number;
  #nextId = 1;
  #timers = new Map<number, PendingTimer>();

  constructor(startMs = 1_000, options: { wallMs?: number } = {}) {
    this.#start = startMs;
    this.#now = startMs;
    this.#wallStart = options.wallMs;
  }

  now(): number {
    return this.#now;
  }

  wallNow(): number {
    return this.#wallStart === undefined ? Date.now() : this.#wallStart + (this.#now - this.#start);
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  every(ms: number, fn: () => void): () => void {
    return repeatEvery(this, ms, fn);
  }

  /** Timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in deadline order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let next: PendingTimer | undefined;
      for (const timer of this.#timers.values()) {
        if (timer.at <= target && (next === undefined || timer.at < next.at)) next = timer;
      }
      if (next === undefined) break;
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
    this.#now = target;
  }
}
