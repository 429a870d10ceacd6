import { isReachError, ReachError } from '@agent-reach/sdk/protocol';
import type { Context, Tracer } from '@opentelemetry/api';
import type { OrchestratorMetrics } from './api/metrics.js';
import { assembleDeliverable, type NodeOutcome, runStatus } from './deliverables/index.js';
import type { CapabilityIndex, DiscoveryView } from './discovery/index.js';
import { bindPlan, type CallAttempt, executePlan, TraceWriter } from './execution/index.js';
import type { PlanOptions, PlanResult } from './planner/index.js';
import { ensureTraceContext, markSpanFailed, withSpan } from './telemetry/index.js';
import type { RunOutcome, TraceStatus } from './traces/status.js';
import type { TraceStore } from './traces/trace-store.js';

/** What the orchestrator is composed of; every client is injected. */
export interface OrchestratorDeps {
  store: TraceStore;
  index: Pick<CapabilityIndex, 'discover' | 'bind'>;
  planner: { plan(task: string, options?: PlanOptions): Promise<PlanResult> };
  /** One attempt against one agent, through the SDK's call path. */
  call: CallAttempt;
  tracer: Tracer;
  /** The names of the configured model providers (a run may pick one first). */
  providers: readonly string[];
  /** Execution deadline of each attempt. @default 30000 */
  executionTimeoutMs?: number;
  metrics?: OrchestratorMetrics;
  /** The retry budget fallbacks spend (the SDK's RetryBudget). */
  budget?: { deposit(): void; tryWithdraw(): boolean };
  /** Where unexpected run failures are reported. */
  onError?: (error: unknown, traceId: string) => void;
  /** Monotonic milliseconds. @default performance.now */
  now?: () => number;
}

/** A run request: the task in plain words and optionally the provider to ask first. */
export interface RunRequest {
  task: string;
  provider?: string;
}

/** The statuses a run can end in. */
type FinalStatus = RunOutcome | 'aborted';

/** How a run ended. */
export interface RunSummary {
  trace_id: string;
  status: TraceStatus;
  summary: string;
  duration_ms: number;
  plan_degraded: boolean;
  nodes: Array<Pick<NodeOutcome, 'node_id' | 'capability' | 'status'>>;
  error?: string;
}

/** A run that has started: its trace id now, its summary when it ends (never rejects). */
export interface StartedRun {
  traceId: string;
  done: Promise<RunSummary>;
}

/**
 * The orchestrator (seed section 3): discovery over DNS → plan → bind → layered execution →
 * deliverable, every step in the trace store, one OTel span tree per run whose trace id is the run's id.
 */
export class Orchestrator {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<RunSummary> }>();
  private readonly now: () => number;

  constructor(private readonly deps: OrchestratorDeps) {
    this.now = deps.now ?? (() => performance.now());
  }

  /** Runs discovery alone (`GET /api/discovery`). */
  async discover(): Promise<DiscoveryView> {
    return withSpan(
      this.deps.tracer,
      'reach.discovery',
      {},
      async () => (await this.deps.index.discover()).view,
    );
  }

  /** Writes a running trace and returns its id at once; the run goes on in the background. */
  async start(request: RunRequest): Promise<StartedRun> {
    if (request.provider !== undefined && !this.deps.providers.includes(request.provider)) {
      throw new ReachError('VALIDATION_FAILED', `unknown provider ${request.provider}`, {
        data: { provider: request.provider, providers: this.deps.providers },
      });
    }
    const abort = new AbortController();
    let announce!: (traceId: string) => void;
    let refuse!: (error: unknown) => void;
    const started = new Promise<string>((resolve, reject) => {
      announce = resolve;
      refuse = reject;
    });
    const done = withSpan(
      this.deps.tracer,
      'reach.run',
      { attributes: { 'reach.task': request.task.slice(0, 200) } },
      async (span, ctx) => {
        const { ctx: runCtx, traceId } = ensureTraceContext(ctx);
        try {
          await this.deps.store.createTrace({
            id: traceId,
            task: request.task,
            meta: { provider: request.provider ?? null },
          });
          await this.appendOrThrow(traceId, {
            type: 'trace_started',
            data: { task: request.task, provider: request.provider ?? null },
          });
        } catch (error) {
          refuse(error);
          throw error;
        }
        span.setAttribute('reach.trace_id', traceId);
        this.deps.metrics?.runsStarted.inc();
        this.deps.metrics?.runsActive.inc();
        announce(traceId);
        const summary = await this.execute(traceId, request, runCtx, abort.signal);
        span.setAttribute('reach.status', summary.status);
        if (summary.status === 'failed') markSpanFailed(span, summary.error ?? 'the run failed');
        return summary;
      },
    );
    done.catch(() => {});
    const traceId = await started;
    const tracked = done.finally(() => this.running.delete(traceId));
    this.running.set(traceId, { abort, done: tracked });
    return { traceId, done: tracked };
  }

  /** Runs a task to the end (`POST /api/run`). */
  async run(request: RunRequest): Promise<RunSummary> {
    return (await this.start(request)).done;
  }

  /** Stops a run in progress (before its trace is deleted); false when it is not running here. */
  async cancel(traceId: string): Promise<boolean> {
    const run = this.running.get(traceId);
    if (run === undefined) return false;
    run.abort.abort();
    await run.done;
    return true;
  }

  /** Stops every run (graceful shutdown); each ends as aborted. */
  async stop(): Promise<void> {
    const runs = [...this.running.values()];
    for (const r of runs) r.abort.abort();
    await Promise.allSettled(runs.map((r) => r.done));
  }

  /** Ids of the runs in progress in this process. */
  active(): string[] {
    return [...this.running.keys()];
  }

  private async appendOrThrow(
    traceId: string,
    event: Parameters<TraceStore['appendEvent']>[1],
  ): Promise<void> {
    const r = await this.deps.store.appendEvent(traceId, event);
    if (!r.ok) throw r.error;
  }

  private async execute(
    traceId: string,
    request: RunRequest,
    runCtx: Context,
    signal: AbortSignal,
  ): Promise<RunSummary> {
    const { store, tracer, metrics } = this.deps;
    const t0 = this.now();
    let planDegraded = false;
    let outcomes: NodeOutcome[] = [];
    const log = new TraceWriter(store, traceId);
    try {
      const discovery = await withSpan(tracer, 'reach.discovery', { parent: runCtx }, () =>
        this.deps.index.discover(),
      );
      metrics?.discoverySeconds.observe(discovery.view.duration_ms / 1000);
      const available = Object.values(discovery.view.capabilities)
        .filter((c) => c.available)
        .map((c) => c.capability);
      await log.event({
        type: 'discovery_finished',
        data: { ms: discovery.view.duration_ms, available, view: discovery.view },
      });

      const planned = await withSpan(tracer, 'reach.plan', { parent: runCtx }, async (span) => {
        const result = await this.deps.planner.plan(request.task, { available, provider: request.provider });
        span.setAttributes({
          'reach.plan.provider': result.provider ?? 'none',
          'reach.plan.degraded': result.degraded,
        });
        return result;
      });
      planDegraded = planned.degraded;
      await log.plan({ ...planned, plan: planned.plan });
      const layerOf = new Map(planned.levels.flatMap((ids, layer) => ids.map((id) => [id, layer] as const)));
      for (const n of planned.plan.nodes) {
        await log.node(n.id, {
          capability: n.capability,
          depends_on: n.depends_on,
          layer: layerOf.get(n.id) ?? null,
          parallel_group: n.parallel_group,
          purpose: n.purpose,
          status: 'pending',
        });
      }
      await log.event({
        type: 'plan_ready',
        data: {
          plan: planned.plan,
          levels: planned.levels,
          warnings: planned.warnings,
          degraded: planned.degraded,
          provider: planned.provider,
          attempts: planned.attempts,
        },
      });

      const bindings = await bindPlan(planned.plan, this.deps.index, discovery, log);
      outcomes = await executePlan(
        planned.plan,
        planned.levels,
        bindings,
        {
          traceId,
          task: request.task,
          log,
          call: this.deps.call,
          tracer,
          executionTimeoutMs: this.deps.executionTimeoutMs ?? 30_000,
          now: this.now,
          signal,
          ...(this.deps.budget === undefined ? {} : { budget: this.deps.budget }),
          onAttempt: (o) => metrics?.attempts.inc({ outcome: o.ok ? 'ok' : o.failure }),
        },
        runCtx,
      );
      // Every queued write lands before the trace is marked finished.
      await log.flush();
      const summary = assembleDeliverable(outcomes, planned.plan.final_node);
      const outcome = runStatus(outcomes, planned.plan.final_node);
      // A fallback plan means the planner failed: the run is degraded even when every node worked.
      const status: FinalStatus = signal.aborted
        ? 'aborted'
        : outcome === 'ok' && planned.degraded
          ? 'degraded'
          : outcome;
      return await this.finish(traceId, status, summary, t0, planDegraded, outcomes, discovery.view.stats);
    } catch (error) {
      await log.flush().catch(() => {});
      this.deps.onError?.(error, traceId);
      const message = isReachError(error)
        ? `${error.code}: ${error.message}`
        : String((error as Error)?.message ?? error);
      return this.finish(
        traceId,
        signal.aborted ? 'aborted' : 'failed',
        '',
        t0,
        planDegraded,
        outcomes,
        null,
        message,
      );
    }
  }

  private async finish(
    traceId: string,
    status: FinalStatus,
    summary: string,
    t0: number,
    planDegraded: boolean,
    outcomes: NodeOutcome[],
    discoveryStats: unknown,
    error?: string,
  ): Promise<RunSummary> {
    const duration_ms = Math.round(this.now() - t0);
    const final = status;
    const counts: Record<string, number> = {};
    for (const o of outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
    const stats = { duration_ms, nodes: counts, discovery: discoveryStats, plan_degraded: planDegraded };
    // The row first, then the event: a client that sees trace_finished reads a finished trace.
    const finished = await this.deps.store
      .finishTrace(traceId, { status: final, summary, stats, error: error ?? null })
      .catch((e) => ({ ok: false as const, error: e }));
    // CONFLICT means the reaper ended it first and already recorded trace_finished.
    if (finished.ok) {
      await this.deps.store
        .appendEvent(traceId, {
          type: 'trace_finished',
          data: {
            status: final,
            duration_ms,
            summary_chars: [...summary].length,
            ...(error ? { error } : {}),
          },
        })
        .catch(() => {});
    }
    this.deps.metrics?.runsActive.dec();
    this.deps.metrics?.runsFinished.inc({ status: final });
    this.deps.metrics?.runSeconds.observe(duration_ms / 1000);
    return {
      trace_id: traceId,
      status: final,
      summary,
      duration_ms,
      plan_degraded: planDegraded,
      nodes: outcomes.map(({ node_id, capability, status: s }) => ({ node_id, capability, status: s })),
      ...(error ? { error } : {}),
    };
  }
}
