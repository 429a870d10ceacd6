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

  /** Appends the latencies of the window's successful outcomes to `into`. */
  successLatencies(into: number[]): void {
    for (let i = 0; i < this.filled; i += 1) if (this.ok[i] === 1) into.push(this.latency[i]!);
  }

  /** p50 / p95 / mean latency of the successful outcomes in the window; null when there are none. */
  latencyStats(): LatencyStats | null {
    const values: number[] = [];
    this.successLatencies(values);
    if (values.length === 0) return null;
    values.sort((a, b) => a - b);
    const at = (q: number) => values[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)]!;
    return { p50: at(0.5), p95: at(0.95), mean: values.reduce((sum, v) => sum + v, 0) / values.length };
  }
}

/** The caller key of outcomes reported without a token (the open loopback default). */
const ANONYMOUS = '';

/**
 * One instance's outcomes, one window per caller: the success rate pools the callers' windows, but a
 * named caller's weight is capped so it holds at most `callerShare` of the evidence (the prior
 * included). One caller alone can then move the rate only part of the way; callers that agree move it
 * all the way. Outcomes without a caller (the open default) are not capped.
 */
export class InstanceOutcomes {
  private readonly callers = new Map<string, OutcomeWindow>();

  constructor(
    private readonly windowSize: number,
    private readonly callerShare: number | undefined,
  ) {}

  record(caller: string, ok: boolean, latencyMs: number): void {
    let window = this.callers.get(caller);
    if (!window) {
      window = new OutcomeWindow(this.windowSize);
      this.callers.set(caller, window);
    }
    window.record(ok, latencyMs);
  }

  get count(): number {
    let n = 0;
    for (const window of this.callers.values()) n += window.count;
    return n;
  }

  get successes(): number {
    let n = 0;
    for (const window of this.callers.values()) n += window.successes;
    return n;
  }

  get failures(): number {
    return this.count - this.successes;
  }

  /** The posterior mean success rate over every caller's window, each named caller's weight capped. */
  successRate(prior: { successes: number; failures: number } = DEFAULT_PRIOR): number {
    const priorWeight = prior.successes + prior.failures;
    const total = priorWeight + this.count;
    let weight = priorWeight;
    let successes = prior.successes;
    for (const [caller, window] of this.callers) {
      if (window.count === 0) continue;
      let w = window.count;
      if (caller !== ANONYMOUS && this.callerShare !== undefined) {
        // Its weight w may be at most share × (w + everyone else's evidence).
        const others = total - window.count;
        w = Math.min(w, (this.callerShare / (1 - this.callerShare)) * others);
      }
      weight += w;
      successes += w * (window.successes / window.count);
    }
    return successes / weight;
  }

  /** p50 / p95 / mean latency of the successful outcomes of every caller's window. */
  latencyStats(): LatencyStats | null {
    const values: number[] = [];
    for (const window of this.callers.values()) window.successLatencies(values);
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

/** How the book keeps outcomes. */
export interface OutcomeBookOptions {
  /** Outcomes kept per (instance, caller). @default 100 */
  windowSize?: number;
  /** Outcome keys remembered to count a re-sent batch once. @default 20000 */
  dedupeCapacity?: number;
  /** Most share of an instance's evidence one named caller may hold; none: no cap. */
  callerShare?: number;
}

/**
 * Every instance's outcomes, per (instance, caller); an outcome reported twice by the same caller
 * (same instance, request and attempt) counts once.
 */
export class OutcomeBook {
  private readonly instances = new Map<string, InstanceOutcomes>();
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];

  constructor(private readonly options: OutcomeBookOptions = {}) {}

  /**
   * Counts a batch into the windows of `caller` (a token name; null without one); `isKnown` filters
   * out instances that are no longer registered.
   */
  record(
    outcomes: readonly Outcome[],
    isKnown: (instanceId: string) => boolean = () => true,
    caller: string | null = null,
  ): RecordSummary {
    const summary: RecordSummary = { accepted: 0, ignored: 0, failed: new Set(), fresh: [] };
    const callerKey = caller ?? ANONYMOUS;
    for (const outcome of outcomes) {
      const key = `${callerKey}\u0000${outcome.instance_id}\u0000${outcome.request_id}\u0000${outcome.attempt}`;
      if (!isKnown(outcome.instance_id) || !this.remember(key)) {
        summary.ignored += 1;
        continue;
      }
      summary.fresh.push(outcome);
      if (outcome.failure && NEUTRAL.has(outcome.failure)) {
        summary.ignored += 1;
        continue;
      }
      this.outcomesOf(outcome.instance_id).record(callerKey, outcome.ok, outcome.latency_ms);
      summary.accepted += 1;
      if (!outcome.ok) summary.failed.add(outcome.instance_id);
    }
    return summary;
  }

  /** The instance's outcomes over every caller, or undefined when none were reported. */
  window(instanceId: string): InstanceOutcomes | undefined {
    return this.instances.get(instanceId);
  }

  /** The instance's success rate with the prior; the prior alone for an instance without outcomes. */
  successRate(instanceId: string): number {
    const outcomes = this.instances.get(instanceId);
    return outcomes
      ? outcomes.successRate()
      : DEFAULT_PRIOR.successes / (DEFAULT_PRIOR.successes + DEFAULT_PRIOR.failures);
  }

  /** Drops an instance's windows (it deregistered or its lease expired). */
  forget(instanceId: string): void {
    this.instances.delete(instanceId);
  }

  instanceIds(): IterableIterator<string> {
    return this.instances.keys();
  }

  private outcomesOf(instanceId: string): InstanceOutcomes {
    let outcomes = this.instances.get(instanceId);
    if (!outcomes) {
      outcomes = new InstanceOutcomes(this.options.windowSize ?? 100, this.options.callerShare);
      this.instances.set(instanceId, outcomes);
    }
    return outcomes;
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
