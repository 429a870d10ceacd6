import type http from 'node:http';
import type https from 'node:https';
import type { Clock } from '../clock/index.js';
import type { InvokeRequest } from '../protocol/invoke.js';
import type { FailureClass } from '../protocol/route.js';
import { a2aAttempt, type ProgressLine } from './a2a-attempt.js';
import { type MoveOnContext, mayMoveOn } from './fallback-rule.js';
import type { OutcomeReport } from './outcome-reporter.js';
import type { ReachTarget } from './reach-target.js';
import type { RetryBudget } from './retry-budget.js';

/** One attempt as the caller sees it afterwards. */
export interface AttemptRecord {
  instance_id: string;
  agent_name: string;
  /** 1 for a lane's first try, then 2, 3, ... for its fallbacks. */
  attempt: number;
  ok: boolean;
  failure?: FailureClass;
  /** Whether the agent had acknowledged the request when the attempt ended. */
  acked: boolean;
  latency_ms: number;
  message?: string;
  code?: string;
}

/** How one fallback chain (a lane) ended. */
export type LaneResult =
  | { ok: true; target: ReachTarget; output: unknown; attempts: AttemptRecord[] }
  | { ok: false; last: AttemptRecord | undefined; attempts: AttemptRecord[]; budgetExhausted: boolean };

/** The ranked targets, shared by the lanes of one call so no target is tried twice. */
export class TargetQueue {
  private next = 0;

  constructor(private readonly targets: readonly ReachTarget[]) {}

  take(): ReachTarget | undefined {
    return this.targets[this.next++];
  }

  get remaining(): number {
    return Math.max(0, this.targets.length - this.next);
  }
}

/** What every lane of one call shares. */
export interface CallContext {
  requestId: string;
  input: unknown;
  context: unknown;
  caller: string | undefined;
  traceparent: string | undefined;
  /** The caller's statement; when undefined the acked target's declared idempotency decides. */
  idempotent: boolean | undefined;
  /** Monotonic deadline of the whole call, if the caller gave one. */
  deadlineAt: number | undefined;
  timeouts: { connectMs: number; ackMs: number; executionMs: number };
  fallbackEnabled: boolean;
  budget: RetryBudget;
  clock: Clock;
  agents: { http: http.Agent; https: https.Agent };
  report: (outcome: OutcomeReport) => void;
  onProgress: ((line: ProgressLine, target: ReachTarget) => void) | undefined;
}

function requestOf(ctx: CallContext, target: ReachTarget, remainingMs: number | undefined): InvokeRequest {
  const request: InvokeRequest = {
    request_id: ctx.requestId,
    capability: target.operation,
    input: ctx.input,
    deadline_ms: Math.min(86_400_000, Math.max(1, Math.ceil(remainingMs ?? ctx.timeouts.executionMs))),
  };
  if (ctx.context !== undefined) request.context = ctx.context;
  if (ctx.caller !== undefined) request.caller = ctx.caller;
  return request;
}

/**
 * One fallback chain (seed article 2.3): try `first`, then further targets from the queue. A failure
 * before the ack always moves on; after the ack only an idempotent request does (and never when the
 * agent called its error final). Each move spends a retry-budget token; the request_id never changes.
 */
export async function runFallbackChain(
  ctx: CallContext,
  first: ReachTarget,
  queue: TargetQueue,
  signal: AbortSignal,
): Promise<LaneResult> {
  const attempts: AttemptRecord[] = [];
  let target: ReachTarget | undefined = first;
  for (let attempt = 1; target; attempt += 1) {
    const remaining = ctx.deadlineAt === undefined ? undefined : ctx.deadlineAt - ctx.clock.now();
    if (remaining !== undefined && remaining <= 0) {
      const last = attempts.at(-1);
      return { ok: false, last, attempts, budgetExhausted: false };
    }
    const current: ReachTarget = target;
    const request = requestOf(ctx, current, remaining);
    const common = {
      headers: (ctx.traceparent ? { traceparent: ctx.traceparent } : {}) as Record<string, string>,
      signal,
      agents: ctx.agents,
      clock: ctx.clock,
      connectMs: Math.min(ctx.timeouts.connectMs, remaining ?? Number.POSITIVE_INFINITY),
      ackMs: Math.min(ctx.timeouts.ackMs, remaining ?? Number.POSITIVE_INFINITY),
      executionMs: ctx.timeouts.executionMs,
      ...(ctx.deadlineAt === undefined ? {} : { deadlineAt: ctx.deadlineAt }),
      ...(ctx.onProgress ? { onProgress: (line: ProgressLine) => ctx.onProgress?.(line, current) } : {}),
    };
    const outcome = await a2aAttempt(current.a2a, { ...common, request });
    const record: AttemptRecord = {
      instance_id: current.instance_id,
      agent_name: current.agent_name,
      attempt,
      ok: outcome.ok,
      acked: outcome.acked,
      latency_ms: outcome.latencyMs,
      ...(outcome.ok ? {} : { failure: outcome.failure, message: outcome.message }),
      ...(!outcome.ok && outcome.code ? { code: outcome.code } : {}),
    };
    attempts.push(record);
    let next: ReachTarget | undefined;
    let budgetExhausted = false;
    if (!outcome.ok && mayMoveOn(outcome, moveOnContext(ctx, current, signal)) && queue.remaining > 0) {
      if (ctx.budget.tryWithdraw()) next = queue.take();
      else budgetExhausted = true;
    }
    ctx.report({
      instance_id: current.instance_id,
      request_id: ctx.requestId,
      operation: current.operation,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { failure: outcome.failure }),
      latency_ms: Math.max(0, outcome.latencyMs),
      attempt,
      fallback: attempt > 1,
      final: outcome.ok || (next === undefined && outcome.failure !== 'cancelled'),
    });
    if (outcome.ok) return { ok: true, target: current, output: outcome.output, attempts };
    if (!next) return { ok: false, last: record, attempts, budgetExhausted };
    target = next;
  }
  return { ok: false, last: attempts.at(-1), attempts, budgetExhausted: false };
}

function moveOnContext(ctx: CallContext, target: ReachTarget, signal: AbortSignal): MoveOnContext {
  return {
    idempotent: ctx.idempotent ?? target.idempotent,
    fallbackEnabled: ctx.fallbackEnabled,
    aborted: signal.aborted,
    ...(ctx.deadlineAt === undefined ? {} : { remainingMs: ctx.deadlineAt - ctx.clock.now() }),
  };
}
