/** The one clock: monotonic time and timers for deadlines, the wall clock for display. */
export {
  type CancelTimer,
  type Clock,
  repeatEvery,
  startTimer,
  systemClock,
  type TimerHandle,
} from './clock.js';
export { sleep, withTimeout } from './deadlines.js';
