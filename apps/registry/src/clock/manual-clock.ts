import { ManualClock as StoreManualClock } from '../store/embedded/manual-clock.js';
import { type Clock, repeatEvery } from './clock.js';

/** A clock that moves only when told to (tests); its wall clock is `Date.now()`, so fake dates apply. */
export class ManualClock extends StoreManualClock implements Clock {
  wallNow(): number {
    return Date.now();
  }

  every(ms: number, fn: () => void): () => void {
    return repeatEvery(this, ms, fn);
  }
}
