import type { WatchEvent } from '../store.js';

interface Watcher {
  prefix: string;
  listener: (events: WatchEvent[]) => void;
  pending: WatchEvent[];
  scheduled: boolean;
  closed: boolean;
}

/**
 * Fans store changes out to prefix watchers. Events are queued synchronously (so a watcher added
 * right after a snapshot misses nothing) and delivered later in batches, never inside a commit.
 */
export class WatchHub {
  readonly #watchers = new Set<Watcher>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  /** Starts queueing changes under `prefix`; returns a function that stops the watcher. */
  add(prefix: string, listener: (events: WatchEvent[]) => void): () => void {
    const watcher: Watcher = { prefix, listener, pending: [], scheduled: false, closed: false };
    this.#watchers.add(watcher);
    return () => {
      watcher.closed = true;
      watcher.pending = [];
      this.#watchers.delete(watcher);
    };
  }

  /** Queues one batch of changes (already applied to the store) for every matching watcher. */
  emit(events: WatchEvent[]): void {
    if (events.length === 0) return;
    for (const watcher of this.#watchers) {
      for (const event of events) if (event.key.startsWith(watcher.prefix)) watcher.pending.push(event);
      if (watcher.pending.length > 0 && !watcher.scheduled) {
        watcher.scheduled = true;
        // setImmediate runs after every pending microtask, so `await store.watch()` callers see the
        // snapshot before the first batch.
        setImmediate(() => this.#deliver(watcher));
      }
    }
  }

  /** Stops every watcher. */
  closeAll(): void {
    for (const watcher of this.#watchers) {
      watcher.closed = true;
      watcher.pending = [];
    }
    this.#watchers.clear();
  }

  #deliver(watcher: Watcher): void {
    watcher.scheduled = false;
    if (watcher.closed || watcher.pending.length === 0) return;
    const batch = watcher.pending;
    watcher.pending = [];
    try {
      watcher.listener(batch);
    } catch (error) {
      this.#onListenerError(error);
    }
  }
}
