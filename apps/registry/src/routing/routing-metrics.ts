import { FailureClass, type Outcome, type RoutingStats } from '@agent-reach/sdk/protocol';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Buckets of the retries-per-call distribution, as the stats API shows them. */
const RETRY_BUCKETS = ['0', '1', '2', '3', '4', '5+'] as const;

/** How one call ended, by the seed's definitions (docs/routing.md, Metrics): the one place they are made. */
export interface CallClass {
  /** Retries and fallbacks the call took (its final attempt minus one). */
  retries: number;
  /** The first candidate served it: a route hit. */
  hit: boolean;
  /** It needed a retry or a fallback candidate. */
  fallback: boolean;
  /** It ended without a result. */
  failed: boolean;
}

/** Whether an outcome ends its call: the one the caller marked `final` (or a success without the mark). */
export const endsCall = (outcome: Outcome): boolean => outcome.final ?? outcome.ok;

/** The class of the call an ending outcome closes. */
export function callClassOf(outcome: Outcome): CallClass {
  const retries = outcome.attempt - 1;
  return { retries, hit: outcome.ok && retries === 0, fallback: retries > 0, failed: !outcome.ok };
}

/** One instance's success rate and identity, read when Prometheus scrapes. */
export interface InstanceRate {
  instanceId: string;
  agentName: string;
  successRate: number;
}

/**
 * The routing indicators of seed article 6.3 (route hit rate, fallback trigger rate, retries per call)
 * plus per-instance success rate and latency, in Prometheus and as plain numbers for the stats API.
 * A call counts once, on the outcome marked `final` (or a successful one without the mark).
 */
export class RoutingMetrics {
  private routes = 0;
  private cachedRoutes = 0;
  private calls = 0;
  private hits = 0;
  private fallbacks = 0;
  private failedCalls = 0;
  // The agent label each instance's series was written with, so they can be removed.
  private readonly agents = new Map<string, string>();
  private readonly retries = new Map<string, number>(RETRY_BUCKETS.map((bucket) => [bucket, 0]));
  private readonly prom:
    | {
        routes: Counter<'cache'>;
        calls: Counter<'served_by'>;
        retries: Histogram;
        outcomes: Counter<'instance_id' | 'agent_name' | 'result'>;
        latency: Histogram<'instance_id' | 'agent_name'>;
      }
    | undefined;

  // Bound once: label lookup per route query is measurable at 10k queries/s.
  private readonly routeHits: { inc(): void } | undefined;
  private readonly routeMisses: { inc(): void } | undefined;

  constructor(registry?: Registry, rates: () => Iterable<InstanceRate> = () => []) {
    if (!registry) return;
    const registers = [registry];
    this.prom = {
      routes: new Counter({
        name: 'reach_route_queries_total',
        help: 'Route queries answered, by whether the route cache answered them.',
        labelNames: ['cache'],
        registers,
      }),
      calls: new Counter({
        name: 'reach_calls_total',
        help: 'Calls reported by callers, by who served them: first candidate (a route hit), fallback, or none.',
        labelNames: ['served_by'],
        registers,
      }),
      retries: new Histogram({
        name: 'reach_call_retries',
        help: 'Retries and fallbacks per call.',
        buckets: [0, 1, 2, 3, 5, 10],
        registers,
      }),
      outcomes: new Counter({
        name: 'reach_instance_outcomes_total',
        help: 'Call attempts per instance, by result (ok or the failure class).',
        labelNames: ['instance_id', 'agent_name', 'result'],
        registers,
      }),
      latency: new Histogram({
        name: 'reach_instance_latency_seconds',
        help: 'Latency of successful call attempts per instance.',
        labelNames: ['instance_id', 'agent_name'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
        registers,
      }),
    };
    this.routeHits = this.prom.routes.labels({ cache: 'hit' });
    this.routeMisses = this.prom.routes.labels({ cache: 'miss' });
    new Gauge({
      name: 'reach_instance_success_rate',
      help: 'Success rate over the last 100 outcomes (with the prior), per instance.',
      labelNames: ['instance_id', 'agent_name'],
      registers,
      collect() {
        this.reset();
        for (const rate of rates())
          this.set({ instance_id: rate.instanceId, agent_name: rate.agentName }, rate.successRate);
      },
    });
  }

  /** Counts one answered route query. */
  routeAnswered(cached: boolean): void {
    this.routes += 1;
    if (cached) this.cachedRoutes += 1;
    (cached ? this.routeHits : this.routeMisses)?.inc();
  }

  /** Counts accepted outcomes; `agentOf` names each instance's agent for the labels. */
  outcomesRecorded(outcomes: readonly Outcome[], agentOf: (instanceId: string) => string | undefined): void {
    for (const outcome of outcomes) {
      const agent = agentOf(outcome.instance_id) ?? '';
      this.agents.set(outcome.instance_id, agent);
      const result: 'ok' | FailureClass = outcome.ok ? 'ok' : (outcome.failure ?? 'agent_error');
      this.prom?.outcomes.inc({ instance_id: outcome.instance_id, agent_name: agent, result });
      if (outcome.ok) {
        this.prom?.latency.observe(
          { instance_id: outcome.instance_id, agent_name: agent },
          outcome.latency_ms / 1000,
        );
      }
      if (endsCall(outcome)) this.callEnded(callClassOf(outcome));
    }
  }

  /** Drops the per-instance series of an instance that is gone. */
  forgetInstance(instanceId: string): void {
    const agentName = this.agents.get(instanceId);
    this.agents.delete(instanceId);
    if (!this.prom || agentName === undefined) return;
    const labels = { instance_id: instanceId, agent_name: agentName };
    for (const result of ['ok', ...FailureClass.options]) this.prom.outcomes.remove({ ...labels, result });
    this.prom.latency.remove(labels);
  }

  /** Route and call figures for the stats API. */
  snapshot(): Omit<RoutingStats, 'instances'> {
    const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
    return {
      routes: {
        total: this.routes,
        cached: this.cachedRoutes,
        cache_hit_rate: share(this.cachedRoutes, this.routes),
      },
      calls: {
        total: this.calls,
        hit_rate: share(this.hits, this.calls),
        fallback_rate: share(this.fallbacks, this.calls),
        failed: this.failedCalls,
        retries: Object.fromEntries(this.retries),
      },
    };
  }

  private callEnded({ retries, hit, fallback, failed }: CallClass): void {
    this.calls += 1;
    if (hit) this.hits += 1;
    if (fallback) this.fallbacks += 1;
    if (failed) this.failedCalls += 1;
    const bucket = retries >= 5 ? '5+' : String(retries);
    this.retries.set(bucket, (this.retries.get(bucket) ?? 0) + 1);
    this.prom?.calls.inc({
      served_by: failed ? 'none' : retries === 0 ? 'first_candidate' : 'fallback',
    });
    this.prom?.retries.observe(retries);
  }
}
