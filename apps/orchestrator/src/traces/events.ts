import { z } from 'zod';
import { NodeStatus, RunOutcome } from './status.js';

const NodeRef = { node_id: z.string().min(1).max(40) };
/** An error as events carry it: a message, or a code and a message. */
export const EventError = z.union([z.string(), z.looseObject({ code: z.string(), message: z.string() })]);

// Payloads are loose: the listed fields are required, producers may add more.
const payloads = {
  trace_started: z.looseObject({ task: z.string(), provider: z.string().nullable().optional() }),
  discovery_finished: z.looseObject({ ms: z.number().min(0), available: z.array(z.string()) }),
  plan_ready: z.looseObject({
    plan: z.looseObject({ nodes: z.array(z.unknown()), final_node: z.string() }),
    levels: z.array(z.array(z.string())),
    warnings: z.array(z.string()),
    degraded: z.boolean(),
    provider: z.string().nullable(),
  }),
  agents_bound: z.looseObject({
    bindings: z.array(z.looseObject({ ...NodeRef, capability: z.string(), agent: z.string().nullable() })),
  }),
  capability_unavailable: z.looseObject({ ...NodeRef, capability: z.string(), reason: z.string() }),
  layer_started: z.looseObject({
    layer: z.number().int().min(0),
    nodes: z.array(z.string()),
    mode: z.enum(['parallel', 'serial']),
  }),
  layer_finished: z.looseObject({
    layer: z.number().int().min(0),
    statuses: z.record(z.string(), NodeStatus),
  }),
  node_started: z.looseObject({ ...NodeRef, capability: z.string() }),
  context_compacted: z.looseObject({
    ...NodeRef,
    original_chars: z.number().int().min(0),
    kept_chars: z.number().int().min(0),
    dropped: z.array(z.string()),
    estimated_tokens: z.number().min(0),
    over_budget_due_to_deliverable: z.boolean(),
  }),
  node_input: z.looseObject({ ...NodeRef, context: z.string(), chars: z.number().int().min(0) }),
  node_attempt_failed: z.looseObject({ ...NodeRef, attempt: z.number().int().min(1), error: EventError }),
  node_retry: z.looseObject({ ...NodeRef, attempt: z.number().int().min(1) }),
  node_succeeded: z.looseObject({
    ...NodeRef,
    ms: z.number().min(0),
    chars: z.number().int().min(0),
    attempts: z.number().int().min(1),
  }),
  node_output: z.looseObject({ ...NodeRef, output: z.string(), chars: z.number().int().min(0) }),
  node_failed: z.looseObject({
    ...NodeRef,
    stage: z.enum(['binding', 'context', 'execution']),
    error: EventError,
  }),
  trace_finished: z.looseObject({ status: z.union([RunOutcome, z.literal('aborted')]) }),
  /** Another (or a restarted) orchestrator took the run over from its record. */
  run_resumed: z.looseObject({
    by: z.string(),
    previous_owner: z.string().nullable(),
    resumes: z.number().int().min(1),
    reused: z.array(z.string()),
    in_flight: z.array(z.string()),
    pending: z.array(z.string()),
  }),
  /** The owner stopped gracefully and left the run for another orchestrator. */
  run_handed_over: z.looseObject({ by: z.string() }),
  /** A non-idempotent call was in flight when its orchestrator died, and its agent is gone: not re-sent. */
  node_interrupted: z.looseObject({ ...NodeRef, capability: z.string(), reason: z.string() }),
} as const;

const event = <K extends keyof typeof payloads>(type: K) =>
  z.object({ type: z.literal(type), data: payloads[type] });

/** An event as producers hand it to the store: a type and its payload (seed 3.5–3.7). */
export const TraceEventInput = z.discriminatedUnion('type', [
  event('trace_started'),
  event('discovery_finished'),
  event('plan_ready'),
  event('agents_bound'),
  event('capability_unavailable'),
  event('layer_started'),
  event('layer_finished'),
  event('node_started'),
  event('context_compacted'),
  event('node_input'),
  event('node_attempt_failed'),
  event('node_retry'),
  event('node_succeeded'),
  event('node_output'),
  event('node_failed'),
  event('trace_finished'),
  event('run_resumed'),
  event('run_handed_over'),
  event('node_interrupted'),
]);
export type TraceEventInput = z.input<typeof TraceEventInput>;

/** Every event type a trace records. */
export type TraceEventType = TraceEventInput['type'];
export const TRACE_EVENT_TYPES = Object.keys(payloads) as TraceEventType[];

/** A stored event: numbered 1, 2, 3, … within its trace. */
export type TraceEvent = z.output<typeof TraceEventInput> & { trace_id: string; seq: number; at: Date };

/** The payload schema of one event type. */
export function eventPayloadSchema<K extends TraceEventType>(type: K): (typeof payloads)[K] {
  return payloads[type];
}
