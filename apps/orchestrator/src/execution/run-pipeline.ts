import type { OutcomeReport } from '@agent-reach/sdk/client';
import { isReachError } from '@agent-reach/sdk/protocol';
import type { Context, Tracer } from '@opentelemetry/api';
import type { OrchestratorMetrics } from '../api/metrics.js';
import {
  assembleDeliverable,
  type MissingCapability,
  type NodeOutcome,
  runStatus,
} from '../deliverables/index.js';
import type { Binding, CapabilityIndex, Discovery } from '../discovery/index.js';
import type { PlanOptions, PlanResult } from '../planner/index.js';
import { withSpan } from '../telemetry/index.js';
import type { RunOutcome, TraceStatus } from '../traces/status.js';
import type { TraceStore } from '../traces/trace-store.js';
import type { TraceWriter } from '../traces/trace-writer.js';
import { bindPlan } from './bind-plan.js';
import { executePlan } from './execute-plan.js';
import type { NodeResume } from './node-runner.js';
import { outcomeReport } from './outcome-report.js';
import type { CallAttempt } from './ports.js';
import type { ResumePoint } from './resume-point.js';

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

/** What one run needs. */
export interface PipelineDeps {
  store: Pick<TraceStore, 'writeBatch'>;
  index: Pick<CapabilityIndex, 'discover' | 'bind'>;
  planner: { plan(task: string, options?: PlanOptions): Promise<PlanResult> };
  call: CallAttempt;
  tracer: Tracer;
  executionTimeoutMs: number;
  now: () => number;
  metrics?: OrchestratorMetrics;
  budget?: { deposit(): void; tryWithdraw(): boolean };
  /** Where each attempt's outcome goes (the SDK's OutcomeReporter, sending to the registry). */
  outcomes?: { add(outcome: OutcomeReport): void };
  onError?: (error: unknown, traceId: string) => void;
}

/** A run that has begun: its discovery under way, and when it began (monotonic ms). */
export interface RunStart {
  discovering: Promise<Discovery>;
  startedAt: number;
}

/**
 * Begins a run: its clock and its discovery (the `reach.discovery` span under the run's). Discovery
 * reads nothing of the run's record, so it goes on while the trace is being created rather than after:
 * the two round trips overlap. A resumed run with calls in flight looks for the very instances it sent
 * them to, not just enough to bind.
 */
export function beginRun(
  deps: Pick<PipelineDeps, 'index' | 'tracer' | 'now'>,
  runCtx: Context,
  resume?: ResumePoint,
): RunStart {
  const startedAt = deps.now();
  const enoughToBind = resume === undefined || resume.inFlight.size === 0;
  const discovering = withSpan(deps.tracer, 'reach.discovery', { parent: runCtx }, () =>
    deps.index.discover(undefined, { reuseDns: true, enoughToBind }),
  );
  // Awaited by the pipeline; when the trace cannot be created the run never gets there.
  discovering.catch(() => {});
  return { discovering, startedAt };
}

/**
 * One run after its trace exists (seed 3.2–3.6): discovery (begun by `beginRun`) → plan →
 * bind → layers → deliverable and status; it never throws — an unexpected failure ends the trace as
 * failed (or aborted when stopped). With a `resume` point it goes on from a previous owner's record:
 * the stored plan, ended nodes reused, calls in flight re-sent with their request_id.
 */
export async function runPipeline(
  deps: PipelineDeps,
  log: TraceWriter,
  request: RunRequest,
  runCtx: Context,
  signal: AbortSignal,
  begun: RunStart,
  resume?: ResumePoint,
): Promise<RunSummary> {
  const { tracer, metrics } = deps;
  const traceId = log.traceId;
  const t0 = begun.startedAt;
  let planDegraded = false;
  let outcomes: NodeOutcome[] = [];
  try {
    if (resume !== undefined) {
      await log.event({
        type: 'run_resumed',
        data: {
          by: resume.by,
          previous_owner: resume.previousOwner,
          resumes: resume.resumes,
          reused: [...resume.done.keys()],
          in_flight: [...resume.inFlight.keys()],
          pending: resume.pending,
          replanned: resume.plan === null,
        },
      });
    }
    const discovery = await begun.discovering;
    metrics?.discoverySeconds.observe(discovery.view.duration_ms / 1000);
    const available = Object.values(discovery.view.capabilities)
      .filter((c) => c.available)
      .map((c) => c.capability);
    await log.event({
      type: 'discovery_finished',
      data: { ms: discovery.view.duration_ms, available, view: discovery.view },
    });

    const planned = resume?.plan ?? (await plan(deps, log, request, available, discovery.catalog, runCtx));
    planDegraded = planned.degraded;

    const toRun = planned.plan.nodes.filter((n) => !resume?.done.has(n.id));
    const bindings = await bindPlan({ ...planned.plan, nodes: toRun }, deps.index, discovery, log);
    const inFlight = new Map<string, NodeResume>();
    for (const [nodeId, sent] of resume?.inFlight ?? []) {
      if (sent === null) continue;
      const capability = planned.plan.nodes.find((n) => n.id === nodeId)?.capability ?? '';
      const target = discovery.candidates.get(capability)?.find((c) => c.instance === sent.instance);
      inFlight.set(nodeId, { inFlight: sent, target });
    }
    outcomes = await executePlan(
      planned.plan,
      planned.levels,
      bindings,
      {
        traceId,
        task: request.task,
        log,
        call: deps.call,
        tracer,
        executionTimeoutMs: deps.executionTimeoutMs ?? 30_000,
        now: deps.now,
        signal,
        ...(deps.budget === undefined ? {} : { budget: deps.budget }),
        onAttempt: (report) => {
          metrics?.attempts.inc({ outcome: report.outcome.ok ? 'ok' : report.outcome.failure });
          deps.outcomes?.add(outcomeReport(report));
        },
      },
      runCtx,
      resume === undefined ? undefined : { done: resume.done, inFlight },
    );
    const summary = assembleDeliverable(outcomes, planned.plan.final_node, missingOf(outcomes, bindings));
    const outcome = runStatus(outcomes, planned.plan.final_node);
    // A fallback plan means the planner failed: the run is degraded even when every node worked.
    const status: FinalStatus = signal.aborted
      ? 'aborted'
      : outcome === 'ok' && planned.degraded
        ? 'degraded'
        : outcome;
    return await finish(deps, log, status, summary, t0, planDegraded, outcomes, discovery.view.stats);
  } catch (error) {
    deps.onError?.(error, traceId);
    return finish(
      deps,
      log,
      signal.aborted ? 'aborted' : 'failed',
      '',
      t0,
      planDegraded,
      outcomes,
      null,
      reasonOf(error),
    );
  }
}

/** Plans the run and records the plan, its pending nodes and `plan_ready`. */
async function plan(
  deps: PipelineDeps,
  log: TraceWriter,
  request: RunRequest,
  available: string[],
  catalog: Discovery['catalog'],
  runCtx: Context,
): Promise<PlanResult> {
  const planned = await withSpan(deps.tracer, 'reach.plan', { parent: runCtx }, async (span) => {
    const result = await deps.planner.plan(request.task, { available, catalog, provider: request.provider });
    span.setAttributes({
      'reach.plan.provider': result.provider ?? 'none',
      'reach.plan.degraded': result.degraded,
    });
    return result;
  });
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
  return planned;
}

async function finish(
  deps: PipelineDeps,
  log: TraceWriter,
  status: FinalStatus,
  summary: string,
  t0: number,
  planDegraded: boolean,
  outcomes: NodeOutcome[],
  discoveryStats: unknown,
  error?: string,
): Promise<RunSummary> {
  const duration_ms = Math.round(deps.now() - t0);
  if (log.sealed) {
    // The run left this orchestrator (handed over or taken over): its new owner ends it.
    deps.metrics?.runsActive.dec();
    return summaryOf(log.traceId, 'running', '', duration_ms, planDegraded, outcomes, 'handed over');
  }
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
  const stats = { duration_ms, nodes: counts, discovery: discoveryStats, plan_degraded: planDegraded };
  const end = (s: FinalStatus, text: string, why: string | undefined) => ({
    trace: { status: s, summary: text, stats, error: why ?? null },
    event: {
      type: 'trace_finished' as const,
      data: { status: s, duration_ms, summary_chars: [...text].length, ...(why ? { error: why } : {}) },
    },
  });
  try {
    // One transaction: the queued writes, the finished row and trace_finished (skipped when the
    // reaper ended the trace first; it recorded its own trace_finished).
    await log.finish(end(status, summary, error));
  } catch (failure) {
    // A write of this run failed, so its record is incomplete: the run ends failed, saying why.
    deps.onError?.(failure, log.traceId);
    status = 'failed';
    summary = '';
    error = reasonOf(failure);
    await log.finish(end(status, summary, error)).catch(() => {});
  }
  deps.metrics?.runsActive.dec();
  deps.metrics?.runsFinished.inc({ status });
  deps.metrics?.runSeconds.observe(duration_ms / 1000);
  return summaryOf(log.traceId, status, summary, duration_ms, planDegraded, outcomes, error);
}

/** The nodes that did not deliver — no agent to bind, or every attempt failed — and why (the deliverable names them). */
function missingOf(
  outcomes: readonly NodeOutcome[],
  bindings: ReadonlyMap<string, Binding>,
): MissingCapability[] {
  const out: MissingCapability[] = [];
  for (const o of outcomes) {
    if (o.status === 'succeeded') continue;
    const b = bindings.get(o.node_id);
    const reason = b !== undefined && !b.ok ? b.reason : o.status;
    out.push({ node_id: o.node_id, capability: o.capability, reason });
  }
  return out;
}

function reasonOf(error: unknown): string {
  return isReachError(error) ? `${error.code}: ${error.message}` : String((error as Error)?.message ?? error);
}

function summaryOf(
  trace_id: string,
  // `running`: the run left this orchestrator and goes on elsewhere.
  status: FinalStatus | 'running',
  summary: string,
  duration_ms: number,
  planDegraded: boolean,
  outcomes: NodeOutcome[],
  error?: string,
): RunSummary {
  return {
    trace_id,
    status,
    summary,
    duration_ms,
    plan_degraded: planDegraded,
    nodes: outcomes.map(({ node_id, capability, status: s }) => ({ node_id, capability, status: s })),
    ...(error ? { error } : {}),
  };
}
