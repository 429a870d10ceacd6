import type { TraceEvent } from './events.js';

/** Receives a trace's events in seq order, each once. */
export type EventListener = (event: TraceEvent) => void;

/** A live subscription; `close` stops delivery at once. */
export interface TraceSubscription {
  close(): void;
}

/** Starts listening on a notification channel; resolves to a function that stops listening. */
export interface EventNotifier {
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
}

/** What the hub reads from the store. */
export interface EventSource {
  currentSeq(traceId: string): Promise<number>;
  eventsAfter(traceId: string, afterSeq: number): Promise<TraceEvent[]>;
}

interface Subscriber {
  traceId: string;
  listener: EventListener;
  lastSeq: number | null;
  chain: Promise<void>;
  /** A read is waiting in the chain; further notifications fold into it. */
  queued: boolean;
  closed: boolean;
}

/**
 * Fans notifications (`<trace_id>:<seq>`) out to subscribers; each subscriber reads the rows after
 * its last seq, so delivery is ordered, gap-free across reconnects, and large payloads never ride
 * in the notification itself.
 */
export class SubscriptionHub {
  readonly #subs = new Map<string, Set<Subscriber>>();
  #listening: Promise<() => Promise<void>> | null = null;

  constructor(
    private readonly notifier: EventNotifier,
    private readonly channel: string,
    private readonly source: EventSource,
  ) {}

  /** Subscribes to a trace: replays events after `afterSeq` when given, else only new ones. */
  async subscribe(traceId: string, listener: EventListener, afterSeq?: number): Promise<TraceSubscription> {
    this.#listening ??= this.notifier.listen(this.channel, (payload) => this.#onNotify(payload));
    await this.#listening;
    const sub: Subscriber = {
      traceId,
      listener,
      lastSeq: afterSeq ?? null,
      chain: Promise.resolve(),
      queued: false,
      closed: false,
    };
    const set = this.#subs.get(traceId) ?? new Set();
    set.add(sub);
    this.#subs.set(traceId, set);
    sub.lastSeq ??= await this.source.currentSeq(traceId);
    // One read now catches events that committed while the subscription was being set up.
    this.#pump(sub);
    return {
      close: () => {
        sub.closed = true;
        set.delete(sub);
        if (set.size === 0) this.#subs.delete(traceId);
      },
    };
  }

  /** Stops listening; subscribers get nothing more. */
  async close(): Promise<void> {
    for (const set of this.#subs.values()) for (const sub of set) sub.closed = true;
    this.#subs.clear();
    const stop = await this.#listening?.catch(() => null);
    this.#listening = null;
    await stop?.();
  }

  #onNotify(payload: string): void {
    const at = payload.lastIndexOf(':');
    const traceId = payload.slice(0, at);
    const seq = Number(payload.slice(at + 1));
    for (const sub of this.#subs.get(traceId) ?? []) {
      if (sub.lastSeq !== null && seq > sub.lastSeq) this.#pump(sub);
    }
  }

  #pump(sub: Subscriber): void {
    if (sub.queued) return;
    sub.queued = true;
    sub.chain = sub.chain
      .then(async () => {
        sub.queued = false;
        if (sub.closed || sub.lastSeq === null) return;
        for (const event of await this.source.eventsAfter(sub.traceId, sub.lastSeq)) {
          if (sub.closed) return;
          if (event.seq <= sub.lastSeq) continue;
          sub.lastSeq = event.seq;
          try {
            sub.listener(event);
          } catch {
            // A listener's failure is its own; the others still get their events.
          }
        }
      })
      // A failed read is retried by the next notification.
      .catch(() => undefined);
  }
}
