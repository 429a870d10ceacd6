import { randomBytes } from 'node:crypto';
import { ReachError } from '@agent-reach/sdk/protocol';
import { type Context, ROOT_CONTEXT, TraceFlags, type Tracer, trace } from '@opentelemetry/api';
import type { OrchestratorMetrics } from './api/metrics.js';
import type { CapabilityIndex, DiscoveryView } from './discovery/index.js';
import {
  beginRun,
  type CallAttempt,
  type PipelineDeps,
  type ResumePoint,
  type RunRequest,
  type RunSummary,
  resumePoint,
  runPipeline,
} from './execution/index.js';
import type { PlanOptions, PlanResult } from './planner/index.js';
import { ensureTraceContext, markSpanFailed, withSpan } from './telemetry/index.js';
import { type ClaimedRun, type TraceDetail, TraceWriter } from './traces/index.js';
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
  /**
   * Who this orchestrator is and how long its lease on each run lasts: every run it starts is owned
   * through the store, and every write is fenced by that ownership. Without it runs are not leased.
   */
  ownership?: { owner: string; leaseTtlMs: number };
}

/** A run taken over more often than this is given up (each owner died running it: a poison run). */
export const MAX_RESUMES = 10;

/** Why a run stopped here before its end: stopped by its user, or left for another orchestrator. */
type StopReason = 'cancel' | 'handover' | 'lost';

interface LocalRun {
  abort: AbortController;
  done: Promise<RunSummary>;
  log: TraceWriter;
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
  private readonly running = new Map<string, LocalRun>();
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

  /** Who owns the runs this orchestrator starts or resumes (undefined: runs are not leased). */
  get owner(): string | undefined {
    return this.deps.ownership?.owner;
  }

  /** Writes a running trace and returns its id at once; the run goes on in the background. */
  async start(request: RunRequest): Promise<StartedRun> {
    if (request.provider !== undefined && !this.deps.providers.includes(request.provider)) {
      throw new ReachError('VALIDATION_FAILED', `unknown provider ${request.provider}`, {
        data: { provider: request.provider, providers: this.deps.providers },
      });
    }
    const { ownership } = this.deps;
    return this.launch(ROOT_CONTEXT, request, async (traceId) => {
      await this.deps.store.createTrace(
        { id: traceId, task: request.task, meta: { provider: request.provider ?? null } },
        { type: 'trace_started', data: { task: request.task, provider: request.provider ?? null } },
        ownership === undefined ? undefined : { owner: ownership.owner, ttlMs: ownership.leaseTtlMs },
      );
      this.deps.metrics?.runsStarted.inc();
    });
  }

  /**
   * Goes on with a run this orchestrator just took over (its owner died or handed it over): from its
   * record, finished nodes reused, calls in flight re-sent with their request_id. Null when the run
   * is already running here or no longer running at all.
   */
  async resume(claim: ClaimedRun): Promise<StartedRun | null> {
    if (this.running.has(claim.id)) return null;
    const detail = await this.deps.store.getTrace(claim.id);
    if (detail === null || detail.trace.status !== 'running') return null;
    if (claim.resumes > MAX_RESUMES) {
      await this.giveUp(detail, claim);
      return null;
    }
    const point = resumePoint(detail, claim, this.owner ?? 'unowned');
    const meta = detail.trace.meta as { provider?: string | null };
    const request: RunRequest = {
      task: detail.trace.task,
      ...(typeof meta.provider === 'string' ? { provider: meta.provider } : {}),
    };
    // The resumed run's spans join the run's own OTel trace: its id is the run's id.
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: claim.id,
      spanId: randomBytes(8).toString('hex'),
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    this.deps.metrics?.runsResumed.inc();
    return this.launch(parent, request, async () => {}, point);
  }

  /** Ends a run that every owner died running: aborted, no node left running or pending. */
  private async giveUp(detail: TraceDetail, claim: ClaimedRun): Promise<void> {
    const log = this.writer(claim.id);
    const reason = `taken over ${claim.resumes} times and never finished: not resumed again`;
    for (const node of detail.nodes) {
      if (node.status === 'running')
        await log.node(node.node_id, { status: 'interrupted', error: reason, in_flight: null });
      else if (node.status === 'pending') await log.node(node.node_id, { status: 'skipped', error: reason });
    }
    await log.finish({
      trace: { status: 'aborted', summary: '', error: reason },
      event: { type: 'trace_finished', data: { status: 'aborted', reason: 'unresumable', error: reason } },
    });
    this.deps.metrics?.runsFinished.inc({ status: 'aborted' });
  }

  private async launch(
    parent: Context,
    request: RunRequest,
    begin: (traceId: string) => Promise<void>,
    resume?: ResumePoint,
  ): Promise<StartedRun> {
    const abort = new AbortController();
    let announce!: (value: { traceId: string; log: TraceWriter }) => void;
    let refuse!: (error: unknown) => void;
    const started = new Promise<{ traceId: string; log: TraceWriter }>((resolve, reject) => {
      announce = resolve;
      refuse = reject;
    });
    const done = withSpan(
      this.deps.tracer,
      'reach.run',
      {
        parent,
        attributes: { 'reach.task': request.task.slice(0, 200), 'reach.resumed': resume !== undefined },
      },
      async (span, ctx) => {
        const { ctx: runCtx, traceId } = ensureTraceContext(ctx);
        const begun = beginRun(this.pipeline, runCtx, resume);
        try {
          await begin(traceId);
        } catch (error) {
          refuse(error);
          throw error;
        }
        span.setAttribute('reach.trace_id', traceId);
        this.deps.metrics?.runsActive.inc();
        const log = this.writer(traceId);
        announce({ traceId, log });
        const summary = await runPipeline(this.pipeline, log, request, runCtx, abort.signal, begun, resume);
        span.setAttribute('reach.status', summary.status);
        if (summary.status === 'failed') markSpanFailed(span, summary.error ?? 'the run failed');
        return summary;
      },
    );
    done.catch(() => {});
    const { traceId, log } = await started;
    const tracked = done.finally(() => this.running.delete(traceId));
    this.running.set(traceId, { abort, done: tracked, log });
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
    await this.halt(run, 'cancel');
    return true;
  }

  /**
   * Graceful shutdown. With ownership, every run is handed over: its record written up to now, its
   * lease released at once, so another (or the restarted) orchestrator resumes it; its calls in
   * flight are re-sent there with their request_id. Without ownership each run ends as aborted.
   */
  async stop(): Promise<void> {
    const runs = [...this.running.values()];
    const reason: StopReason = this.deps.ownership === undefined ? 'cancel' : 'handover';
    await Promise.allSettled(runs.map((r) => this.halt(r, reason)));
    const owner = this.deps.ownership?.owner;
    if (owner !== undefined) await this.deps.store.releaseRuns(owner);
  }

  /** Runs another orchestrator took over (this one's lease lapsed): stopped here, nothing more written. */
  async lost(traceIds: readonly string[]): Promise<void> {
    const runs = traceIds.map((id) => this.running.get(id)).filter((r) => r !== undefined);
    this.deps.metrics?.runsLost.inc(runs.length);
    await Promise.allSettled(runs.map((r) => this.halt(r, 'lost')));
  }

  private async halt(run: LocalRun, reason: StopReason): Promise<void> {
    if (reason === 'handover') {
      await run.log.event({ type: 'run_handed_over', data: { by: this.owner ?? '' } });
    }
    // Sealed first: what the run does while it stops (cancelled calls) is not recorded as its end.
    if (reason !== 'cancel') await run.log.seal();
    run.abort.abort();
    await run.done;
  }

  /** A run's writer: every batch fenced by this orchestrator's ownership of the run. */
  private writer(traceId: string): TraceWriter {
    const owner = this.deps.ownership?.owner;
    return new TraceWriter(this.deps.store, traceId, owner === undefined ? {} : { owner });
  }

  /** Ids of the runs in progress in this process. */
  active(): string[] {
    return [...this.running.keys()];
  }
}
