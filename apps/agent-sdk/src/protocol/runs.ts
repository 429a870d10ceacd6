import { z } from 'zod';

// The orchestrator's run wire: statuses, trace events and the JSON answers of its run API. The
// orchestrator validates and documents with these; the console's UI and CLI read the types.

/** A run's status in the trace store; `aborted` is set by the stale reaper (seed 2.9). */
export const TraceStatus = z.enum(['running', 'ok', 'degraded', 'failed', 'aborted']);
export type TraceStatus = z.infer<typeof TraceStatus>;

/** How a finished run ended (seed 3.6). */
export const RunOutcome = z.enum(['ok', 'degraded', 'failed']);
export type RunOutcome = z.infer<typeof RunOutcome>;

/**
 * A node's status; `unavailable` means no agent could be bound for its capability, `interrupted` that
 * a non-idempotent call was in flight when its orchestrator died and its agent was gone on resume.
 */
export const NODE_STATUSES = [
  'pending',
  'running',
  'succeeded',
  'failed',
  'unavailable',
  'skipped',
  'interrupted',
] as const;
export const NodeStatus = z.enum(NODE_STATUSES);
export type NodeStatus = z.infer<typeof NodeStatus>;

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

/** The payload schema of one event type. */
export function eventPayloadSchema<K extends TraceEventType>(type: K): (typeof payloads)[K] {
  return payloads[type];
}

// The orchestrator's JSON answers, for the OpenAPI document. The rows are drizzle's
// (`$inferSelect`); the API tests parse real answers with these, so the document cannot drift from them.

const Timestamp = z.iso.datetime({ offset: true }).describe('ISO 8601 time');
const Json = z.record(z.string(), z.unknown());

/** A trace row (`GET /api/traces` items, `trace` of a detail). */
export const TraceRowWire = z.object({
  id: z.string().regex(/^[0-9a-f]{32}$/),
  task: z.string(),
  status: TraceStatus,
  started_at: Timestamp,
  finished_at: Timestamp.nullable(),
  last_event_at: Timestamp,
  last_seq: z.number().int(),
  duration_ms: z.number().int().nullable(),
  summary: z.string().nullable(),
  stats: Json.nullable(),
  error: z.string().nullable(),
  meta: Json,
});

/** `GET /api/traces`. */
export const TracePageWire = z.object({ items: z.array(TraceRowWire), next_cursor: z.string().nullable() });

/** The stored plan of a run. */
export const PlanRowWire = z.object({
  trace_id: z.string(),
  raw: z.unknown(),
  normalized: Json,
  warnings: z.array(z.string()),
  degraded: z.boolean(),
  levels: z.array(z.array(z.string())),
  provider: z.string().nullable(),
  attempts: z.array(z.unknown()),
  created_at: Timestamp,
});

/** One node of a run. */
export const NodeRowWire = z.object({
  trace_id: z.string(),
  node_id: z.string(),
  capability: z.string(),
  depends_on: z.array(z.string()),
  layer: z.number().int().nullable(),
  parallel_group: z.string().nullable(),
  purpose: z.string().nullable(),
  status: NodeStatus,
  agent: z.string().nullable(),
  instance_id: z.string().nullable(),
  endpoint: z.string().nullable(),
  binding: Json.nullable(),
  attempts: z.number().int(),
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  duration_ms: z.number().int().nullable(),
  output_chars: z.number().int().nullable(),
  input_context: z.string().nullable(),
  output: z.string().nullable(),
  error: z.string().nullable(),
});

/** One recorded event (also each SSE `message` of `GET /api/stream/{id}`). */
export const TraceEventWire = z.object({
  trace_id: z.string(),
  seq: z.number().int().min(1),
  type: z.string(),
  at: Timestamp,
  data: Json,
});

/** `GET /api/traces/{id}`. */
export const TraceDetailWire = z.object({
  trace: TraceRowWire,
  plan: PlanRowWire.nullable(),
  nodes: z.array(NodeRowWire),
  events: z.array(TraceEventWire),
});

/** `POST /api/run`. */
export const RunSummaryWire = z.object({
  trace_id: z.string(),
  status: TraceStatus,
  summary: z.string(),
  duration_ms: z.number().int(),
  plan_degraded: z.boolean(),
  nodes: z.array(z.object({ node_id: z.string(), capability: z.string(), status: NodeStatus })),
  error: z.string().optional(),
});

/** `POST /api/start`. */
export const StartedWire = z.object({ trace_id: z.string(), status: z.literal('started') });

/** `DELETE /api/traces/{id}`. */
export const DeletedWire = z.object({ trace_id: z.string(), deleted: z.literal(true) });

/** `GET /api/discovery`: what DNS discovery found per capability. */
export const DiscoveryWire = z.object({
  zone: z.string(),
  dns_server: z.string(),
  discovered_at: Timestamp,
  duration_ms: z.number(),
  strategy: z.string(),
  capabilities: z.record(z.string(), Json),
  stats: z.record(z.string(), z.number()),
  totals: z.record(z.string(), z.number()),
});

export type TraceRowWire = z.infer<typeof TraceRowWire>;
export type TracePageWire = z.infer<typeof TracePageWire>;
export type PlanRowWire = z.infer<typeof PlanRowWire>;
export type NodeRowWire = z.infer<typeof NodeRowWire>;
export type TraceEventWire = z.infer<typeof TraceEventWire>;
export type TraceDetailWire = z.infer<typeof TraceDetailWire>;
export type RunSummaryWire = z.infer<typeof RunSummaryWire>;
export type StartedWire = z.infer<typeof StartedWire>;
export type DeletedWire = z.infer<typeof DeletedWire>;

/** A recorded event as the API sends it (`TraceEventWire`), its payload typed by its type. */
export type TypedTraceEventWire = z.output<typeof TraceEventInput> & {
  trace_id: string;
  seq: number;
  at: string;
};

/** The payload of one event type, as the API sends it. */
export type TraceEventPayload<K extends TraceEventType> = Extract<
  z.output<typeof TraceEventInput>,
  { type: K }
>['data'];
