import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { TraceEvent, TraceEventInput } from './events.js';
import type { FinishTraceInput, NodeUpsert, SavePlanInput } from './inputs.js';
import { events, nodes, plans, traces } from './schema.js';

/** Any drizzle Postgres database or transaction (postgres.js or PGlite). */
export type TraceDb = PgDatabase<PgQueryResultHKT>;

/** What a run's writer queued meanwhile; `TraceStore.writeBatch` writes it in one transaction. */
export interface TraceBatch {
  /** Appended in order with consecutive seqs; `at` is when each happened (default: the write). */
  events?: ReadonlyArray<{ event: TraceEventInput; at?: Date }>;
  /** Applied in order; several changes of one node become one row write. */
  nodes?: readonly NodeUpsert[];
  plan?: SavePlanInput;
  /** Ends the trace if it is still running; `event` (its trace_finished) then comes last. */
  finish?: { trace: FinishTraceInput; event?: TraceEventInput; at?: Date };
  /**
   * The orchestrator writing it: the batch is written only while the run is still its own (a fencing
   * check, so an owner that lost its lease cannot write into a run another orchestrator took over).
   */
  owner?: string;
}

/**
 * What a batch wrote: its events with their seqs, and whether it ended the trace (false when it had no
 * finish or the trace had already ended). Rows are not read back: parsing them costs more than writing.
 */
export interface BatchResult {
  events: TraceEvent[];
  finished: boolean;
}

/** A batch after validation (see TraceStore.writeBatch). */
export interface CheckedBatch {
  events: Array<{ v: TraceEventInput; at: Date }>;
  nodes: NodeUpsert[];
  plan: SavePlanInput | undefined;
  finish: { trace: FinishTraceInput; event: { v: TraceEventInput; at: Date } | undefined } | undefined;
  owner: string | undefined;
}

/** The columns that end a trace at `now` (also used by the reaper). */
export function endedAt(now: Date) {
  return {
    finished_at: now,
    duration_ms: sql<number>`greatest(0, round(extract(epoch from (${now.toISOString()}::timestamptz - ${traces.started_at})) * 1000))::int`,
  };
}

const notFound = (traceId: string) =>
  err(new ReachError('NOT_FOUND', `no trace ${traceId}`, { data: { traceId } }));

/** The trace row `traceId`, and only while `owner` (when given) owns it. */
function ownRow(traceId: string, owner: string | undefined): SQL {
  const row = eq(traces.id, traceId);
  return owner === undefined ? row : and(row, eq(traces.owner, owner))!;
}

/** NOT_FOUND when the trace is gone, else CONFLICT: another orchestrator owns the run now. */
async function missing(tx: TraceDb, traceId: string, owner: string | undefined) {
  if (owner === undefined) return notFound(traceId);
  const [row] = await tx.select({ owner: traces.owner }).from(traces).where(eq(traces.id, traceId));
  if (!row) return notFound(traceId);
  return err(
    new ReachError('CONFLICT', `run ${traceId} is no longer owned by ${owner}`, {
      data: { traceId, owner: row.owner, reason: 'not_owner' },
    }),
  );
}

/**
 * Writes a checked batch inside transaction `tx`: at most one update of the trace row (which locks it,
 * so seqs stay consecutive, and sends the NOTIFY, delivered on commit: subscribers read every row after
 * their last seq, so the highest seq is all they need), one multi-row event INSERT, one node upsert per
 * set of columns, the plan. Each statement costs PGlite about a millisecond, so they are few.
 */
export async function writeBatchTx(
  tx: TraceDb,
  traceId: string,
  batch: CheckedBatch,
  ctx: { channel: string; now: Date },
): Promise<Result<BatchResult>> {
  const { finish } = batch;
  let written = batch.events;
  let lastSeq: number | null = null;
  let finished = false;
  if (finish !== undefined) {
    const withEnd = finish.event === undefined ? written : [...written, finish.event];
    const [row] = await tx
      .update(traces)
      .set({
        status: finish.trace.status,
        ...endedAt(ctx.now),
        summary: finish.trace.summary ?? null,
        stats: finish.trace.stats ?? null,
        error: finish.trace.error ?? null,
        ...seqBump(withEnd),
      })
      .where(and(ownRow(traceId, batch.owner), eq(traces.status, 'running')))
      .returning(notifying(ctx.channel, traceId, withEnd.length));
    if (row) {
      finished = true;
      lastSeq = row.seq;
      written = withEnd;
    }
  }
  if (lastSeq === null && written.length > 0) {
    const [bumped] = await tx
      .update(traces)
      .set(seqBump(written))
      .where(ownRow(traceId, batch.owner))
      .returning(notifying(ctx.channel, traceId, written.length));
    if (!bumped) return missing(tx, traceId, batch.owner);
    lastSeq = bumped.seq;
  }
  if (lastSeq === null) {
    // Nothing bumped the row: share-lock it, so a concurrent delete either waits or leaves us NOT_FOUND.
    const [found] = await tx
      .select({ id: traces.id })
      .from(traces)
      .where(ownRow(traceId, batch.owner))
      .for('share');
    if (!found) return missing(tx, traceId, batch.owner);
  }
  const eventRows = await insertEvents(tx, traceId, written, lastSeq ?? 0);
  await upsertNodeRows(tx, traceId, batch.nodes);
  if (batch.plan !== undefined) await upsertPlan(tx, traceId, batch.plan, ctx.now);
  return ok({ events: eventRows, finished });
}

/** Tells subscribers (on commit) that the trace row's events now go up to its last_seq. */
export function notifyLastSeq(channel: string, traceId: string): SQL {
  return sql`pg_notify(${channel}, ${`${traceId}:`} || ${traces.last_seq})`;
}

/** The new last seq of a trace row, notifying subscribers of it when `events` were added. */
function notifying(channel: string, traceId: string, events: number) {
  return { seq: traces.last_seq, notified: events === 0 ? sql`null` : notifyLastSeq(channel, traceId) };
}

/** Moves last_seq past `items` and last_event_at to the newest of them. */
function seqBump(items: ReadonlyArray<{ at: Date }>): { last_seq: SQL; last_event_at?: SQL } {
  const last_seq = sql`${traces.last_seq} + ${items.length}`;
  if (items.length === 0) return { last_seq };
  const latest = new Date(Math.max(...items.map((i) => i.at.getTime())));
  return {
    last_seq,
    last_event_at: sql`greatest(${traces.last_event_at}, ${latest.toISOString()}::timestamptz)`,
  };
}

/** Inserts events numbered up to `lastSeq` in one statement. */
async function insertEvents(
  tx: TraceDb,
  traceId: string,
  items: ReadonlyArray<{ v: TraceEventInput; at: Date }>,
  lastSeq: number,
): Promise<TraceEvent[]> {
  if (items.length === 0) return [];
  const first = lastSeq - items.length + 1;
  const rows = items.map((i, k) => ({
    trace_id: traceId,
    seq: first + k,
    type: i.v.type,
    at: i.at,
    data: i.v.data,
  }));
  await tx.insert(events).values(rows);
  return rows.map((r, k) => ({ ...r, ...items[k]!.v }) as TraceEvent);
}

/** Folds each node's changes into one row write; a field given as undefined keeps its stored value. */
export function mergeNodeUpserts(inputs: readonly NodeUpsert[]): NodeUpsert[] {
  const merged = new Map<string, NodeUpsert>();
  for (const v of inputs) {
    const given = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined)) as NodeUpsert;
    merged.set(v.node_id, { ...merged.get(v.node_id), ...given });
  }
  return [...merged.values()];
}

/** Node writes that set the same columns, together: one statement each. */
export function groupByColumns(merged: readonly NodeUpsert[]): NodeUpsert[][] {
  const byColumns = new Map<string, NodeUpsert[]>();
  for (const v of merged) {
    const key = Object.keys(v).sort().join(',');
    byColumns.set(key, [...(byColumns.get(key) ?? []), v]);
  }
  return [...byColumns.values()];
}

/** Folds each node's changes into one, then writes the nodes that set the same columns in one statement. */
async function upsertNodeRows(tx: TraceDb, traceId: string, inputs: readonly NodeUpsert[]): Promise<void> {
  for (const group of groupByColumns(mergeNodeUpserts(inputs))) {
    const set: Record<string, SQL> = {};
    for (const key of Object.keys(group[0]!)) {
      if (key === 'node_id') continue;
      const column = nodes[key as keyof NodeUpsert];
      set[key] = sql.raw(`excluded."${column.name}"`);
    }
    await tx
      .insert(nodes)
      .values(group.map((v) => ({ ...v, trace_id: traceId })))
      .onConflictDoUpdate({ target: [nodes.trace_id, nodes.node_id], set });
  }
}

async function upsertPlan(tx: TraceDb, traceId: string, v: SavePlanInput, now: Date): Promise<void> {
  const values = {
    raw: v.raw ?? null,
    normalized: v.plan,
    warnings: v.warnings,
    degraded: v.degraded,
    levels: v.levels,
    provider: v.provider ?? null,
    attempts: v.attempts ?? [],
    created_at: now,
  };
  await tx
    .insert(plans)
    .values({ trace_id: traceId, ...values })
    .onConflictDoUpdate({ target: plans.trace_id, set: values });
}
