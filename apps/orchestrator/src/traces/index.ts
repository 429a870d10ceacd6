/** The trace store on Postgres or PGlite, its schema, inputs and event types (seed 2.9, ARCHITECTURE §8). */
export {
  EventError,
  eventPayloadSchema,
  TRACE_EVENT_TYPES,
  type TraceEvent,
  TraceEventInput,
  type TraceEventType,
} from './events.js';
export { CreateTraceInput, FinishTraceInput, NodeUpsert, SavePlanInput } from './inputs.js';
export { decodeCursor, encodeCursor, ListTracesQuery, type PageCursor } from './list-query.js';
export type { TracePage } from './list-traces.js';
export { EVENTS_CHANNEL, MIGRATIONS_FOLDER } from './migrations-folder.js';
export { openPgliteTraceStore, type PgliteTraceStoreOptions, pgliteTraceStore } from './open-pglite.js';
export { openPostgresTraceStore, type PostgresTraceStoreOptions } from './open-postgres.js';
export type { ClaimedRun } from './run-leases.js';
export type { InFlight } from './schema.js';
export {
  type EventRow,
  events,
  type NodeInsert,
  type NodeRow,
  nodes,
  type PlanRow,
  plans,
  type TraceRow,
  traceSchema,
  traces,
} from './schema.js';
export { type StaleReaperOptions, startStaleReaper } from './stale-reaper.js';
export { NodeStatus, RunOutcome, TraceStatus } from './status.js';
export type { EventListener, EventNotifier, TraceSubscription } from './subscriptions.js';
export type { BatchResult, TraceBatch } from './trace-batch.js';
export { newTraceId, TraceId } from './trace-id.js';
export {
  type RunLease,
  STALE_AFTER_MS,
  type TraceDb,
  type TraceDetail,
  TraceStore,
  type TraceStoreDeps,
} from './trace-store.js';
export { TraceWriter } from './trace-writer.js';
