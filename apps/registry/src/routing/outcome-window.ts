import type { FailureClass, Outcome } from '@agent-reach/sdk/protocol';

/** The Beta-like prior new instances start from: 9 successes in 10 tries (a 0.9 success rate). */
export const DEFAULT_PRIOR = { successes: 9, failures: 1 } as const;

/** Outcomes that say nothing about the instance's health (a first_win loser was cancelled by the caller). */
const NEUTRAL: ReadonlySet<FailureClass> = new Set(['cancelled']);

/** Latency figures over the successful calls of a window. */
export interface LatencyStats {
  p50: number;
  p95: number;
  mean: number;
}

/** A ring buffer of one instance's last `size` outcomes (seed article 4.2: "the last 100 reaches"). */
export class OutcomeWindow {
  private readonly ok: Uint8Array;
  private readonly latency: Float64Array;
  private next = 0;
  private filled = 0;
  private okCount = 0;

  constructor(readonly size = 100) {
    this.ok = new Uint8Array(size);
    this.latency = new Float64Array(size);
  }

  /** Adds one outcome, pushing out the oldest once the window is full. */
  record(ok: boolean, latencyMs: number): void {
    if (this.filled === this.size) this.okCount -= this.ok[this.next]!;
    else this.filled += 1;
    this.ok[this.next] = ok ? 1 : 0;
    this.latency[this.next] = latencyMs;
    this.okCount += ok ? 1 : 0;
    this.next = (this.next + 1) % this.size;
  }

  get count(): number {
    return this.filled;
  }

  get successes(): number {
    return this.okCount;
  }

  get failures(): number {
    return this.filled - this.okCount;
  }

  /** The posterior mean success rate: (successes + a) / (n + a + b), so few outcomes move it little. */
  successRate(prior: { successes: number; failures: number } = DEFAULT_PRIOR): number {
    return (this.okCount + prior.successes) / (this.filled + prior.successes + prior.failures);
  }

  /** p50 / p95 / mean latency of the successful outcomes in the window; null when there are none. */
  latencyStats(): LatencyStats | null {
    const values: number[] = [];
    for (let i = 0; i < this.filled; i += 1) if (this.ok[i] === 1) values.push(this.latency[i]!);
    if (values.length === 0) return null;
    values.sort((a, b) => a - b);
    const at = (q: number) => values[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)]!;
    return { p50: at(0.5), p95: at(0.95), mean: values.reduce((sum, v) => sum + v, 0) / values.length };
  }
}

/** What one batch did to the book. */
export interface RecordSummary {
  /** Outcomes counted into a window. */
  accepted: number;
  /** Outcomes for unknown instances, repeats of an outcome already counted, or neutral ones. */
  ignored: number;
  /** Instances that got at least one failure in this batch. */
  failed: Set<string>;
  /** Outcomes of known instances seen for the first time (neutral ones included), for metrics. */
  fresh: Outcome[];
}

/** Every instance's outcome window; outcomes reported twice (same instance, request and attempt) count once. */
export class OutcomeBook {
  private readonly windows = new Map<string, OutcomeWindow>();
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];

  constructor(private readonly options: { windowSize?: number; dedupeCapacity?: number } = {}) {}

  /** Counts a batch into the windows; `isKnown` filters out instances that are no longer registered. */
  record(outcomes: readonly Outcome[], isKnown: (instanceId: string) => boolean = () => true): RecordSummary {
    const summary: RecordSummary = { accepted: 0, ignored: 0, failed: new Set(), fresh: [] };
    for (const outcome of outcomes) {
      const key = `${outcome.instance_id}\u0000${outcome.request_id}\u0000${outcome.attempt}`;
      if (!isKnown(outcome.instance_id) || !this.remember(key)) {
        summary.ignored += 1;
        continue;
      }
      summary.fresh.push(outcome);
      if (outcome.failure && NEUTRAL.has(outcome.failure)) {
        summary.ignored += 1;
        continue;
      }
      this.windowOf(outcome.instance_id).record(outcome.ok, outcome.latency_ms);
      summary.accepted += 1;
      if (!outcome.ok) summary.failed.add(outcome.instance_id);
    }
    return summary;
  }

  window(instanceId: string): OutcomeWindow | undefined {
    return this.windows.get(instanceId);
  }

  /** The instance's success rate with the prior; the prior alone for an instance without outcomes. */
  successRate(instanceId: string): number {
    const window = this.windows.get(instanceId);
    return window
      ? window.successRate()
      : DEFAULT_PRIOR.successes / (DEFAULT_PRIOR.successes + DEFAULT_PRIOR.failures);
  }

  /** Drops an instance's window (it deregistered or its lease expired). */
  forget(instanceId: string): void {
    this.windows.delete(instanceId);
  }

  instanceIds(): IterableIterator<string> {
    return this.windows.keys();
  }

  private windowOf(instanceId: string): OutcomeWindow {
    let window = this.windows.get(instanceId);
    if (!window) {
      window = new OutcomeWindow(this.options.windowSize ?? 100);
      this.windows.set(instanceId, window);
    }
    return window;
  }

  // Bounded memory of outcome keys so a client's re-sent batch does not count twice.
  private remember(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    this.seenOrder.push(key);
    const capacity = this.options.dedupeCapacity ?? 20_000;
    if (this.seenOrder.length > capacity * 1.5) {
      for (const old of this.seenOrder.splice(0, this.seenOrder.length - capacity)) this.seen.delete(old);
    }
    return true;
  }
}
