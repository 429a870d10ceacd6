import type { CancelTimer, Clock } from './clock.js';

/** A clock tests move by hand: `advance(ms)` runs the timers that fall due. */
export class ManualClock implements Clock {
  private current = 0;
  private timers: { at: number; fn: () => void }[] = [];

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): CancelTimer {
    const timer = { at: this.current + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = due.at;
      due.fn();
    }
    this.current = target;
  }
}
