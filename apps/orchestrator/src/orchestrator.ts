import { ReachError } from '@agent-reach/sdk/protocol';
import type { Tracer } from '@opentelemetry/api';
import type { OrchestratorMetrics } from './api/metrics.js';
import type { CapabilityIndex, DiscoveryView } from './discovery/index.js';
import {
  type CallAttempt,
  type PipelineDeps,
  type RunRequest,
  type RunSummary,
  runPipeline,
} from './execution/index.js';
import type { PlanOptions, PlanResult } from './planner/index.js';
import { ensureTraceContext, markSpanFailed, withSpan } from './telemetry/index.js';
import type { TraceStore } from './traces/trace-store.js';

export type { RunRequest, RunSummary } from './execution/index.js';

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
  /** Gets every attempt's outcome (the SDK's OutcomeReporter, when a registry URL is configured). */
  outcomes?: PipelineDeps['outcomes'];
  /** Where unexpected run failures are reported. */
  onError?: (error: unknown, traceId: string) => void;
  /** Monotonic milliseconds. @default performance.now */
  now?: () => number;
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
  private readonly pipeline: PipelineDeps;

  constructor(private readonly deps: OrchestratorDeps) {
    this.pipeline = {
      ...deps,
      executionTimeoutMs: deps.executionTimeoutMs ?? 30_000,
      now: deps.now ?? (() => performance.now()),
    };
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
          await this.deps.store.createTrace(
            { id: traceId, task: request.task, meta: { provider: request.provider ?? null } },
            { type: 'trace_started', data: { task: request.task, provider: request.provider ?? null } },
          );
        } catch (error) {
          refuse(error);
          throw error;
        }
        span.setAttribute('reach.trace_id', traceId);
        this.deps.metrics?.runsStarted.inc();
        this.deps.metrics?.runsActive.inc();
        announce(traceId);
        const summary = await runPipeline(this.pipeline, traceId, request, runCtx, abort.signal);
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
}
