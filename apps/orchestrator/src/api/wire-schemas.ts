import { z } from 'zod';
import { NodeStatus, TraceStatus } from '../traces/status.js';

// The orchestrator's JSON answers as zod schemas, for the OpenAPI document. The rows are drizzle's
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
