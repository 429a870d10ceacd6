import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { parseDuration } from '../protocol/duration.js';
import { err, ok, ReachError, type Result } from '../protocol/errors.js';
import { RouteQuery, type RouteQueryInput } from '../protocol/route.js';
import type { ProgressLine } from './a2a-attempt.js';
import { callError } from './call-error.js';
import { CandidateRouter, type Routed } from './candidate-router.js';
import {
  type CompiledClientOptions,
  compileClientOptions,
  type DurationInput,
  type ReachClientOptions,
} from './client-options.js';
import { type DispatchMode, raceFirstWin, runAll } from './dispatch.js';
import type { AttemptRecord, CallContext, LaneResult } from './fallback-chain.js';
import { OutcomeReporter } from './outcome-reporter.js';
import type { ReachTarget } from './reach-target.js';
import { RetryBudget } from './retry-budget.js';

/** One target's successful answer. */
export interface TargetResult {
  instance_id: string;
  agent_name: string;
  operation: string;
  output: unknown;
}

/** A call: what is needed, the input, and how to dispatch it. */
export interface ReachRequest {
  /** The need, as for `POST /v1/route` (operation, domain, constraints, exclude). */
  need: RouteQueryInput;
  input: unknown;
  /** Context prepared by the caller, passed to the agent. */
  context?: unknown;
  /** @default 'first_win' */
  mode?: DispatchMode;
  /** Targets raced or required. @default 1 for first_win, else the candidate count */
  k?: number;
  /** Whether the request may run twice; decides fallback after an ack. @default the target's declaration */
  idempotent?: boolean;
  /** The whole call's deadline (`'10m'` or ms); the execution timeout becomes what is left of it. */
  deadline?: DurationInput;
  /** @default a new UUID; it travels unchanged with every attempt. */
  requestId?: string;
  /** W3C trace context, passed to the registry and every agent. */
  traceparent?: string;
  signal?: AbortSignal;
  /** synthesize: a merge function, or `'agent'` (default) to ask a `synthesis`-capable agent. */
  merge?: ((results: TargetResult[]) => unknown) | 'agent';
  onProgress?: (line: ProgressLine, target: ReachTarget) => void;
}

/** A served call. */
export interface ReachSuccess {
  request_id: string;
  mode: DispatchMode;
  /** first_win: the winner's output; all_must: every target's output in order; synthesize: the merge. */
  output: unknown;
  results: TargetResult[];
  attempts: AttemptRecord[];
  route: {
    source: 'registry' | 'dns';
    /** Answered from a cache: the client's own route cache or the registry's. */
    cached: boolean;
    candidates: number;
    conflict: { agents: string[]; capability: string } | null;
  };
}

/** A call's result: a value, never a throw. */
export type ReachResult = Result<ReachSuccess, ReachError>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The caller side of Agent Reach: describe a need, get it served by the best live agent, with three
 * timeouts, fallback chains under a shared retry budget, three dispatch modes, outcome reporting, and
 * DNS (SVCB, then SRV) when the registry is unreachable.
 */
export class ReachClient {
  readonly options: CompiledClientOptions;
  readonly budget: RetryBudget;
  private readonly reporter: OutcomeReporter | undefined;
  private readonly router: CandidateRouter;
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
    https: new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
  };

  constructor(options: ReachClientOptions = {}) {
    this.options = compileClientOptions(options);
    this.budget = new RetryBudget(this.options.retryBudget, this.options.clock);
    this.router = new CandidateRouter(this.options);
    const { registryUrl, outcomes } = this.options;
    if (registryUrl && outcomes) {
      this.reporter = new OutcomeReporter({
        registryUrl,
        token: this.options.registryToken,
        fetch: this.options.fetch,
        clock: this.options.clock,
        ...outcomes,
      });
    }
  }

  /** Routes, calls and falls back; resolves with the result or an error value (never rejects). */
  async reach(request: ReachRequest): Promise<ReachResult> {
    const requestId = request.requestId ?? randomUUID();
    if (!REQUEST_ID.test(requestId))
      return err(new ReachError('VALIDATION_FAILED', 'requestId: 1-128 of [A-Za-z0-9._:-]'));
    const mode = request.mode ?? 'first_win';
    const parsed = RouteQuery.safeParse(request.need);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return err(new ReachError('VALIDATION_FAILED', `need.${issue.path.join('.')}: ${issue.message}`));
    }
    const deadlineMs = request.deadline === undefined ? undefined : parseDuration(request.deadline);
    if (deadlineMs === null || (deadlineMs !== undefined && deadlineMs <= 0)) {
      return err(
        new ReachError('VALIDATION_FAILED', `deadline: not a positive duration: ${String(request.deadline)}`),
      );
    }
    const k =
      request.k ?? (mode === 'first_win' ? 1 : (request.need.max_candidates ?? this.options.maxCandidates));
    if (!Number.isInteger(k) || k < 1 || k > 20)
      return err(new ReachError('VALIDATION_FAILED', 'k: an integer from 1 to 20'));
    const clock = this.options.clock;
    const deadlineAt = deadlineMs === undefined ? undefined : clock.now() + deadlineMs;
    this.budget.deposit();

    // An explicit max_candidates is kept (at least k); otherwise leave room for two fallbacks.
    const spares = this.options.fallbackEnabled ? 2 : 0;
    const wanted = request.need.max_candidates ?? Math.max(this.options.maxCandidates, k + spares);
    const query = { ...parsed.data, max_candidates: Math.min(20, Math.max(wanted, k)) };
    const routed = await this.router.route(query, request.traceparent);
    if (!routed.ok) return routed;
    const { targets, ...route } = routed.value;

    const ctx: CallContext = {
      requestId,
      input: request.input,
      context: request.context,
      caller: this.options.caller,
      traceparent: request.traceparent,
      idempotent: request.idempotent,
      deadlineAt,
      timeouts: {
        connectMs: this.options.connectTimeoutMs,
        ackMs: this.options.ackTimeoutMs,
        executionMs: this.options.executionTimeoutMs,
      },
      fallbackEnabled: this.options.fallbackEnabled,
      budget: this.budget,
      clock,
      agents: this.agents,
      report: (outcome) => {
        this.reporter?.add(outcome);
        if (!outcome.ok) this.router.forgetInstance(outcome.instance_id);
      },
      onProgress: request.onProgress,
    };
    const success = (output: unknown, results: TargetResult[], attempts: AttemptRecord[]): ReachResult =>
      ok({ request_id: requestId, mode, output, results, attempts, route });

    if (mode === 'first_win') {
      const { winner, lanes } = await raceFirstWin(ctx, targets, k, request.signal);
      const attempts = lanes.flatMap((lane) => lane?.attempts ?? []);
      if (!winner)
        return err(callError(requestId, `no candidate served ${query.operation}`, lanes, attempts));
      return success(winner.output, [resultOf(winner)], attempts);
    }
    const lanes = await runAll(ctx, targets, k, request.signal);
    const attempts = lanes.flatMap((lane) => lane.attempts);
    const served = lanes.filter((lane): lane is Extract<LaneResult, { ok: true }> => lane.ok).map(resultOf);
    if (mode === 'all_must') {
      if (served.length < lanes.length) {
        return err(
          callError(
            requestId,
            `all_must: ${lanes.length - served.length} of ${lanes.length} targets failed`,
            lanes,
            attempts,
          ),
        );
      }
      return success(
        served.map((r) => r.output),
        served,
        attempts,
      );
    }
    if (served.length === 0)
      return err(callError(requestId, 'synthesize: no target succeeded', lanes, attempts));
    const merged = await this.merge(request, requestId, served, deadlineAt);
    if (!merged.ok) return merged;
    return success(merged.value, served, attempts);
  }

  /** The ranked targets for a need (registry first, DNS when it is unreachable), without calling them. */
  async route(need: RouteQueryInput, traceparent?: string): Promise<Result<Routed, ReachError>> {
    const parsed = RouteQuery.safeParse(need);
    if (!parsed.success) return err(new ReachError('VALIDATION_FAILED', parsed.error.issues[0]!.message));
    return this.router.route(parsed.data, traceparent);
  }

  /** Sends the outcomes still waiting and closes idle connections. */
  async close(): Promise<void> {
    await this.reporter?.close();
    this.router.close();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async merge(
    request: ReachRequest,
    requestId: string,
    served: TargetResult[],
    deadlineAt: number | undefined,
  ): Promise<Result<unknown, ReachError>> {
    const merge = request.merge ?? 'agent';
    if (merge !== 'agent') {
      try {
        return ok(await merge(served));
      } catch (cause) {
        return err(
          new ReachError('INTERNAL', `synthesize: the merge function failed: ${(cause as Error).message}`, {
            cause,
          }),
        );
      }
    }
    const remaining =
      deadlineAt === undefined ? undefined : Math.max(1, deadlineAt - this.options.clock.now());
    const synthesis = await this.reach({
      need: { operation: 'synthesis', ...(request.need.domain ? { domain: request.need.domain } : {}) },
      ...synthesisRequest(request, served),
      idempotent: true,
      requestId: `${requestId.slice(0, 110)}:synthesis`,
      ...(remaining === undefined ? {} : { deadline: remaining }),
      ...(request.traceparent ? { traceparent: request.traceparent } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return synthesis.ok ? ok(synthesis.value.output) : synthesis;
  }
}

/** The task a request carries: its input when that is text, or the input's `task` field. */
function taskOf(request: ReachRequest): string | null {
  const input = request.input;
  if (typeof input === 'string' && input.trim() !== '') return input;
  const task = (input as { task?: unknown } | null)?.task;
  return typeof task === 'string' && task.trim() !== '' ? task : null;
}

/** An output as text: a string, an object's `text`, or its JSON. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const text = (output as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : JSON.stringify(output ?? null);
}

/**
 * What the default merge sends a synthesis agent, in the shape the orchestrator sends every node:
 * `input` `{task, purpose, outputs}` and `context` `{text, items}` holding each served output (the
 * caller's own context, if any, rides along as `caller_context`).
 */
export function synthesisRequest(
  request: ReachRequest,
  served: readonly TargetResult[],
): { input: unknown; context: unknown } {
  const operation = served[0]?.operation ?? String(request.need.operation ?? 'the request');
  const task = taskOf(request) ?? `Merge the ${served.length} answers to ${operation} into one.`;
  const items = served.map((r) => ({
    node_id: r.instance_id,
    capability: r.operation,
    agent_name: r.agent_name,
    text: outputText(r.output),
  }));
  return {
    input: {
      task,
      purpose: `Merge the ${served.length} answers to ${operation} into one.`,
      outputs: served.map(({ agent_name, operation: op, output }) => ({ agent_name, operation: op, output })),
    },
    context: {
      text: items.map((i) => `### ${i.node_id} · ${i.capability}\n${i.text}`).join('\n\n'),
      items,
      ...(request.context === undefined ? {} : { caller_context: request.context }),
    },
  };
}

function resultOf(lane: Extract<LaneResult, { ok: true }>): TargetResult {
  return {
    instance_id: lane.target.instance_id,
    agent_name: lane.target.agent_name,
    operation: lane.target.operation,
    output: lane.output,
  };
}
