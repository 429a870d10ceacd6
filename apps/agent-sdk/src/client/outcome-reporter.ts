import type { z } from 'zod';
import { type CancelTimer, type Clock, startTimer } from '../clock/index.js';
import type { Outcome } from '../protocol/route.js';

/** One outcome as the client records it. */
export type OutcomeReport = z.input<typeof Outcome>;

/** Where and how often outcomes go. */
export interface OutcomeReporterOptions {
  registryUrl: string;
  /** Bearer token with the `report_outcomes` right, when the registry has tokens. */
  token?: string | undefined;
  fetch: typeof fetch;
  clock: Clock;
  /** @default 1000 */
  flushIntervalMs?: number;
  /** A batch is sent as soon as this many are waiting. @default 100 */
  maxBatch?: number;
  /** Oldest outcomes are dropped beyond this while the registry is unreachable. @default 5000 */
  maxBuffered?: number;
}

/**
 * Batches call outcomes to `POST /v1/outcomes`: every `flushIntervalMs` or `maxBatch` outcomes, in the
 * background. Recording never blocks or fails a call; a batch the registry does not take is dropped.
 */
export class OutcomeReporter {
  private buffer: OutcomeReport[] = [];
  private cancelTimer: CancelTimer | undefined;
  private inFlight = new Set<Promise<void>>();
  /** Batches the registry took, and ones that failed (for tests and diagnostics). */
  readonly counts = { sent: 0, failed: 0, dropped: 0 };

  private readonly headers: Record<string, string>;

  constructor(private readonly options: OutcomeReporterOptions) {
    this.headers = { 'content-type': 'application/json' };
    if (options.token) this.headers.authorization = `Bearer ${options.token}`;
  }

  /** Queues one outcome. */
  add(outcome: OutcomeReport): void {
    this.buffer.push(outcome);
    const max = this.options.maxBuffered ?? 5000;
    if (this.buffer.length > max) {
      this.counts.dropped += this.buffer.length - max;
      this.buffer.splice(0, this.buffer.length - max);
    }
    if (this.buffer.length >= (this.options.maxBatch ?? 100)) void this.flush();
    else
      this.cancelTimer ??= startTimer(
        this.options.clock,
        () => void this.flush(),
        this.options.flushIntervalMs ?? 1000,
      );
  }

  /** Sends what is waiting now, in batches of at most `maxBatch`. */
  flush(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    const sends: Promise<void>[] = [];
    while (this.buffer.length > 0) sends.push(this.send(this.buffer.splice(0, this.options.maxBatch ?? 100)));
    return Promise.all(sends).then(() => undefined);
  }

  /** Flushes and waits for every batch still in flight. */
  async close(): Promise<void> {
    await this.flush();
    await Promise.all([...this.inFlight]);
  }

  private send(outcomes: OutcomeReport[]): Promise<void> {
    const sending = this.options
      .fetch(`${this.options.registryUrl}/v1/outcomes`, {
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify({ outcomes }),
        signal: AbortSignal.timeout(5000),
      })
      .then(async (response) => {
        await response.body?.cancel();
        if (response.ok) this.counts.sent += 1;
        else this.counts.failed += 1;
      })
      .catch(() => {
        this.counts.failed += 1;
      })
      .finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
    return sending;
  }
}
