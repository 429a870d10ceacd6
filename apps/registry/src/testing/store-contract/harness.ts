import type { RegistryStore, WatchEvent } from '../../store/store.js';

/** One store under test, as the contract suite needs it. */
export interface StoreUnderTest {
  store: RegistryStore;
  /** Closes the current store cleanly and opens a new one on the same data (a restart). */
  reopen?: () => Promise<RegistryStore>;
  /** Opens a second store on the same data, as another process would (etcd only). */
  peer?: () => Promise<RegistryStore>;
  /** Closes every store it opened and removes their data. */
  cleanup(): Promise<void>;
}

/** Opens a fresh, empty store for one test. */
export type OpenStoreUnderTest = () => Promise<StoreUnderTest>;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns true; fails with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 8_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** Collects watch batches as they arrive. */
export class EventLog {
  readonly batches: WatchEvent[][] = [];
  readonly listener = (events: WatchEvent[]) => {
    this.batches.push(events);
  };

  get events(): WatchEvent[] {
    return this.batches.flat();
  }
}

/** A key prefix no other test uses. */
export const uniquePrefix = (label: string) =>
  `/contract/${label}-${Math.random().toString(36).slice(2, 10)}/`;
