import { NODE_STATUSES } from '@agent-reach/sdk/protocol';
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

/** The attempt of a node that was sent and not yet answered: where a resumed run re-sends it. */
export interface InFlight {
  attempt: number;
  instance: string;
  agent: string;
  endpoint: string;
  idempotent: boolean;
}

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));

/** One run: its task, status and outcome; `id` is the 32-hex OpenTelemetry trace id. */
export const traces = pgTable(
  'traces',
  {
    id: text('id').primaryKey(),
    task: text('task').notNull(),
    status: text('status', { enum: ['running', 'ok', 'degraded', 'failed', 'aborted'] })
      .notNull()
      .default('running'),
    started_at: at('started_at').notNull(),
    finished_at: at('finished_at'),
    /** Liveness signal for the reaper: the time of the newest event (seed 2.9). */
    last_event_at: at('last_event_at').notNull(),
    /** The highest event seq handed out; bumped under the row lock so seqs stay consecutive. */
    last_seq: integer('last_seq').notNull().default(0),
    duration_ms: integer('duration_ms'),
    summary: text('summary'),
    stats: jsonb('stats').$type<Record<string, unknown>>(),
    error: text('error'),
    /** Run inputs besides the task (provider, caller, …). */
    meta: jsonb('meta').$type<Record<string, unknown>>().notNull().default({}),
    /** The orchestrator that runs it now (while `running`); null once handed over. */
    owner: text('owner'),
    /** The owner's lease, in the database's clock: past it, any orchestrator may take the run over. */
    lease_until: at('lease_until'),
    /** How many times another (or a restarted) orchestrator took the run over. */
    resumes: integer('resumes').notNull().default(0),
  },
  (t) => [
    index('traces_started_idx').on(t.started_at.desc(), t.id.desc()),
    index('traces_status_event_idx').on(t.status, t.last_event_at),
    index('traces_running_lease_idx').on(t.lease_until).where(sql`${t.status} = 'running'`),
    check(
      'traces_status_check',
      sql`${t.status} in (${inList(['running', 'ok', 'degraded', 'failed', 'aborted'])})`,
    ),
  ],
);

/** The plan of a run: the model's raw output, the normalised plan, warnings and layers. */
export const plans = pgTable('plans', {
  trace_id: text('trace_id').primaryKey(),
  raw: jsonb('raw').$type<unknown>(),
  normalized: jsonb('normalized').$type<Record<string, unknown>>().notNull(),
  warnings: jsonb('warnings').$type<string[]>().notNull().default([]),
  degraded: boolean('degraded').notNull().default(false),
  levels: jsonb('levels').$type<string[][]>().notNull().default([]),
  provider: text('provider'),
  attempts: jsonb('attempts').$type<unknown[]>().notNull().default([]),
  created_at: at('created_at').notNull(),
});

/** One node of a run: who ran it, what it received and returned. */
export const nodes = pgTable(
  'nodes',
  {
    trace_id: text('trace_id').notNull(),
    node_id: text('node_id').notNull(),
    capability: text('capability').notNull(),
    depends_on: jsonb('depends_on').$type<string[]>().notNull().default([]),
    layer: integer('layer'),
    parallel_group: text('parallel_group'),
    purpose: text('purpose'),
    status: text('status', { enum: NODE_STATUSES }).notNull().default('pending'),
    agent: text('agent'),
    instance_id: text('instance_id'),
    endpoint: text('endpoint'),
    /** The bound primary and alternates with their selection details. */
    binding: jsonb('binding').$type<Record<string, unknown>>(),
    attempts: integer('attempts').notNull().default(0),
    started_at: at('started_at'),
    finished_at: at('finished_at'),
    duration_ms: integer('duration_ms'),
    output_chars: integer('output_chars'),
    input_context: text('input_context'),
    output: text('output'),
    error: text('error'),
    /** The attempt sent and not yet answered (written before a non-idempotent call goes out). */
    in_flight: jsonb('in_flight').$type<InFlight>(),
  },
  (t) => [
    primaryKey({ columns: [t.trace_id, t.node_id] }),
    check('nodes_status_check', sql`${t.status} in (${inList(NODE_STATUSES)})`),
  ],
);

/** Every event of a run, numbered 1, 2, 3, … per trace. */
export const events = pgTable(
  'events',
  {
    trace_id: text('trace_id').notNull(),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    at: at('at').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.trace_id, t.seq] })],
);

/** The drizzle schema object for both drivers. */
export const traceSchema = { traces, plans, nodes, events };

export type TraceRow = typeof traces.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;
export type NodeRow = typeof nodes.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type NodeInsert = typeof nodes.$inferInsert;
