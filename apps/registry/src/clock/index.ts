export { type Clock, repeatEvery, systemClock, type TimerHandle } from './clock.js';
export { ManualClock } from './manual-clock.js';
