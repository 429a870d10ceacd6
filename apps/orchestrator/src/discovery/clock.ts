/** Monotonic milliseconds; injected so cache expiry is testable without sleeping. */
export interface Clock {
  now(): number;
}

/** The process's monotonic clock. */
export const systemClock: Clock = { now: () => performance.now() };
