import { isReachError } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { expect } from 'vitest';
import type { TraceEvent, TraceEventInput } from '../../traces/events.js';
import type { TraceStore } from '../../traces/trace-store.js';

/** The clock a contract test runs on: its wall clock starts at a fixed instant and moves with `advance`. */
export function contractClock(): ManualClock {
  return new ManualClock(0, { wallMs: Date.parse('2026-10-23T08:00:00.000Z') });
}

/** A small valid event for tests. */
export const ev = (node_id: string, i = 0): TraceEventInput => ({
  type: 'node_started',
  data: { node_id, capability: 'research', layer: i },
});

/** Resolves with the first `n` events a subscription delivers, or rejects after `timeoutMs`. */
export function collect(
  store: TraceStore,
  traceId: string,
  n: number,
  options: { afterSeq?: number; timeoutMs?: number } = {},
): { ready: Promise<void>; done: Promise<TraceEvent[]>; close: () => void } {
  const got: TraceEvent[] = [];
  let close = () => {};
  let ready!: Promise<void>;
  const done = new Promise<TraceEvent[]>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`got ${got.length} of ${n} events`)),
      options.timeoutMs ?? 5000,
    );
    ready = store
      .subscribe(
        traceId,
        (e) => {
          got.push(e);
          if (got.length === n) {
            clearTimeout(timer);
            resolve(got);
          }
        },
        options,
      )
      .then((sub) => {
        close = () => sub.close();
      });
  });
  return { ready, done, close: () => close() };
}

/** Asserts that `promise` rejects with a ReachError of `code`. */
export async function expectThrowsCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isReachError(error) ? error.code : error).toBe(code);
}

/** What each contract case works on; refreshed before every test. */
export interface ContractContext {
  store: TraceStore;
  clock: ManualClock;
}
