import { mayMoveOn } from '@agent-reach/sdk/client';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import { compactContext, estimateTokens, renderContext, type UpstreamOutput } from '../context/index.js';
import type { NodeOutcome } from '../deliverables/index.js';
import type { Binding, Candidate } from '../discovery/index.js';
import type { PlanNode } from '../plan/index.js';
import { markSpanFailed, traceparentOf, withSpan } from '../telemetry/index.js';
import type { InFlight } from '../traces/index.js';
import { candidateRef } from './bind-plan.js';
import type { AttemptReport, CallAttempt, RunLog } from './ports.js';

/** What every node of one run shares. */
export interface NodeRunDeps {
  traceId: string;
  task: string;
  log: RunLog;
  call: CallAttempt;
  tracer: Tracer;
  /** The execution deadline each attempt gets. */
  executionTimeoutMs: number;
  /** Monotonic milliseconds. */
  now: () => number;
  signal?: AbortSignal;
  /** Observes each attempt (metrics, outcome reports). */
  onAttempt?: (report: AttemptReport) => void;
  /** The retry budget fallbacks spend (the SDK's RetryBudget); none means unlimited. */
  budget?: { deposit(): void; tryWithdraw(): boolean };
}

/** A node a resumed run found in flight: the attempt its previous owner had sent and not seen answered. */
export interface NodeResume {
  inFlight: InFlight;
  /** That very instance when discovery still finds it live; the re-send goes there first. */
  target: Candidate | undefined;
}

/** The agent's output as text: a string, an object's `text`, or its JSON. */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (
    typeof output === 'object' &&
    output !== null &&
    typeof (output as { text?: unknown }).text === 'string'
  ) {
    return (output as { text: string }).text;
  }
  return JSON.stringify(output ?? null);
}

/** The request id of a node: one per node, the same across its attempts (the idempotency key). */
export function nodeRequestId(traceId: string, nodeId: string): string {
  return `${traceId}.${nodeId}`;
}

/**
 * Runs one node (seed 3.5): context from its dependencies' outputs, compacted; `node_input` with the
 * full context; the primary, then alternates while the fallback rule allows; every step recorded.
 * It never throws for an agent's failure: the outcome says how the node ended.
 */
export async function runNode(
  node: PlanNode,
  binding: Binding | undefined,
  upstream: readonly UpstreamOutput[],
  deps: NodeRunDeps,
  parent: Context,
  resume?: NodeResume,
): Promise<NodeOutcome> {
  const { log } = deps;
  const base = { node_id: node.id, capability: node.capability };
  return withSpan(
    deps.tracer,
    'reach.node',
    { parent, attributes: { 'reach.node_id': node.id, 'reach.capability': node.capability } },
    async (span, nodeCtx) => {
      const started = deps.now();
      // A non-idempotent call whose agent is gone may have done its work: it is never sent elsewhere.
      if (resume !== undefined && !resume.inFlight.idempotent && resume.target === undefined) {
        return interrupted(node, deps, span, resume.inFlight, 'its agent is gone');
      }
      await log.event({
        type: 'node_started',
        data: { ...base, purpose: node.purpose, ...(resume ? { resumed: true } : {}) },
      });
      await log.node(node.id, { status: 'running', started_at: new Date() });
      if (binding === undefined || !binding.ok) {
        const reason = binding?.ok === false ? binding.reason : 'capability_unavailable';
        const error = { code: 'NO_CANDIDATES', message: `no agent for ${node.capability}: ${reason}` };
        markSpanFailed(span, error.message);
        await log.event({ type: 'node_failed', data: { ...base, stage: 'binding', error } });
        await log.node(node.id, { status: 'unavailable', finished_at: new Date(), error: error.message });
        return { ...base, status: 'unavailable', output: null };
      }
      const compacted = compactContext(upstream);
      await log.event({ type: 'context_compacted', data: { ...base, ...compacted.compaction } });
      const contextText = renderContext(compacted.items);
      const input = { task: deps.task, purpose: node.purpose, node_id: node.id, capability: node.capability };
      const context = {
        text: contextText,
        items: compacted.items.map(({ node_id, capability, text }) => ({ node_id, capability, text })),
      };
      await log.event({
        type: 'node_input',
        data: {
          ...base,
          context: contextText,
          chars: [...contextText].length,
          input,
          agent: binding.primary.agent_name,
        },
      });
      await log.node(node.id, { input_context: contextText });

      const request = {
        request_id: nodeRequestId(deps.traceId, node.id),
        capability: node.capability,
        input,
        context,
        deadline_ms: deps.executionTimeoutMs,
        caller: 'orchestrator',
      };
      const { targets, pinned, offset } = attemptTargets(binding, resume);
      deps.budget?.deposit();
      let lastError = { code: 'UNAVAILABLE', message: 'no attempt was made' };
      let made = 0;
      for (const [i, target] of targets.entries()) {
        const attempt = offset + i + 1;
        if (deps.signal?.aborted) {
          lastError = { code: 'CANCELLED', message: 'the run was stopped' };
          break;
        }
        if (i > 0)
          await log.event({ type: 'node_retry', data: { ...base, attempt, ...candidateRef(target) } });
        // Written ahead of the call: a resumed run re-sends it there with the same request_id. Only
        // a non-idempotent call waits for the write (an idempotent one may go anywhere on resume).
        await log.node(node.id, {
          attempts: attempt,
          in_flight: {
            attempt,
            instance: target.instance,
            agent: target.agent_name,
            endpoint: target.endpoint,
            idempotent: target.idempotent,
          },
        });
        if (!target.idempotent) await log.flush();
        const outcome = await withSpan(
          deps.tracer,
          'reach.attempt',
          {
            parent: nodeCtx,
            attributes: {
              'reach.attempt': attempt,
              'reach.agent': target.agent_name,
              'reach.endpoint': target.endpoint,
            },
          },
          async (attemptSpan, attemptCtx) => {
            const result = await deps.call(target, request, {
              traceparent: traceparentOf(attemptCtx),
              signal: deps.signal,
            });
            if (!result.ok) markSpanFailed(attemptSpan, `${result.failure}: ${result.message}`);
            return result;
          },
        );
        made = attempt;
        // The fallback rule, then the retry budget (spent only when the rule allows another attempt).
        let moveOn =
          !outcome.ok && mayMoveOn(outcome, { idempotent: target.idempotent }) && i + 1 < targets.length;
        const budgetExhausted = moveOn && deps.budget !== undefined && !deps.budget.tryWithdraw();
        moveOn &&= !budgetExhausted;
        deps.onAttempt?.({
          outcome,
          target,
          requestId: request.request_id,
          capability: node.capability,
          attempt,
          final: !moveOn && (outcome.ok || outcome.failure !== 'cancelled'),
        });
        if (outcome.ok) {
          const text = outputText(outcome.output);
          const chars = [...text].length;
          const ms = Math.round(deps.now() - started);
          const who = { agent: target.agent_name, instance: target.instance, endpoint: target.endpoint };
          await log.event({
            type: 'node_succeeded',
            data: { ...base, ms, chars, attempts: attempt, tokens: estimateTokens(text), ...who },
          });
          await log.event({ type: 'node_output', data: { ...base, output: text, chars } });
          await log.node(node.id, {
            status: 'succeeded',
            agent: target.agent_name,
            instance_id: target.instance,
            endpoint: target.endpoint,
            attempts: attempt,
            finished_at: new Date(),
            duration_ms: ms,
            output_chars: chars,
            output: text,
            in_flight: null,
          });
          return { ...base, status: 'succeeded', output: text };
        }
        if (pinned && outcome.failure === 'connect') {
          return interrupted(node, deps, span, resume!.inFlight, 'its agent no longer answers');
        }
        lastError = { code: outcome.code, message: outcome.message };
        await log.event({
          type: 'node_attempt_failed',
          data: {
            ...base,
            attempt,
            error: lastError,
            failure: outcome.failure,
            acked: outcome.acked,
            ms: outcome.ms,
            ...candidateRef(target),
          },
        });
        if (budgetExhausted) {
          lastError = { code: lastError.code, message: `${lastError.message} (retry budget exhausted)` };
        }
        if (!moveOn) break;
      }
      markSpanFailed(span, lastError.message);
      await log.event({ type: 'node_failed', data: { ...base, stage: 'execution', error: lastError } });
      await log.node(node.id, {
        status: 'failed',
        attempts: made,
        finished_at: new Date(),
        duration_ms: Math.round(deps.now() - started),
        error: `${lastError.code}: ${lastError.message}`,
        in_flight: null,
      });
      return { ...base, status: 'failed', output: null };
    },
  );
}

/**
 * Who a node's attempts go to. A resumed in-flight node goes first to the instance it was sent to
 * (the same request_id, so a finished call answers with its first answer); a non-idempotent one goes
 * there only (`pinned`), never to another agent. Attempt numbers continue from the one in flight.
 */
function attemptTargets(
  binding: Extract<Binding, { ok: true }>,
  resume: NodeResume | undefined,
): { targets: Candidate[]; pinned: boolean; offset: number } {
  const bound = [binding.primary, ...binding.alternates];
  if (resume === undefined) return { targets: bound, pinned: false, offset: 0 };
  const offset = resume.inFlight.attempt - 1;
  const first = resume.target;
  if (first === undefined) return { targets: bound, pinned: false, offset };
  if (!resume.inFlight.idempotent) return { targets: [first], pinned: true, offset };
  return { targets: [first, ...bound.filter((c) => c.instance !== first.instance)], pinned: false, offset };
}

/** Ends a node whose non-idempotent call cannot be re-sent: `interrupted`, and the run degraded. */
async function interrupted(
  node: PlanNode,
  deps: NodeRunDeps,
  span: Span,
  inFlight: InFlight,
  why: string,
): Promise<NodeOutcome> {
  const base = { node_id: node.id, capability: node.capability };
  const reason = `a non-idempotent call to ${inFlight.agent} (${inFlight.instance}) was in flight when its orchestrator stopped, and ${why}: not re-sent to another agent`;
  markSpanFailed(span, reason);
  await deps.log.event({
    type: 'node_interrupted',
    data: { ...base, reason, agent: inFlight.agent, instance: inFlight.instance, attempt: inFlight.attempt },
  });
  await deps.log.node(node.id, {
    status: 'interrupted',
    finished_at: new Date(),
    error: reason,
    in_flight: null,
  });
  return { ...base, status: 'interrupted', output: null };
}
