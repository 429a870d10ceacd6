import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { NodeUpsert } from './inputs.js';
import { events, nodes, plans, traces } from './schema.js';
import {
  type BatchResult,
  type CheckedBatch,
  groupByColumns,
  mergeNodeUpserts,
  type TraceDb,
} from './trace-batch.js';

const NODE_COLUMNS = getTableColumns(nodes) as Record<string, PgColumn>;

/** A value as `jsonb_to_recordset` reads it: dates as ISO text, everything else as it is. */
const recordValue = (value: unknown): unknown => (value instanceof Date ? value.toISOString() : value);

/** `x(name type, …)`: the record shape `jsonb_to_recordset` returns for these node columns. */
function recordShape(columns: readonly PgColumn[]): SQL {
  return sql.raw(columns.map((c) => `"${c.name}" ${c.getSQLType()}`).join(', '));
}

/**
 * A batch in ONE statement (each statement costs PGlite about a millisecond or two, and a Postgres
 * round trip; the end of a run is on the answer's critical path, and a non-idempotent call waits for
 * its write): data-modifying CTEs that first move the trace row's seq past the batch's events and
 * notify (only while `owner` holds the run; when the batch ends the run, only while it is still
 * running, and then the row gets its end too), then insert the events numbered after the bumped seq,
 * upsert the nodes (one CTE per set of columns) and the plan. Every insert reads from the trace row's
 * CTE, so when the row is not there for this batch nothing at all is written and `undefined` comes
 * back: the caller then takes the transactional path, which knows those cases (not found, not the
 * owner, already ended). A single statement is atomic on its own, and needs no BEGIN/COMMIT.
 */
export async function writeInOneStatement(
  db: TraceDb,
  traceId: string,
  batch: CheckedBatch,
  ctx: { channel: string; now: Date },
): Promise<BatchResult | undefined> {
  const { finish } = batch;
  const items = finish?.event === undefined ? batch.events : [...batch.events, finish.event];
  const n = items.length;
  const now = ctx.now.toISOString();
  const latest = n === 0 ? null : new Date(Math.max(...items.map((i) => i.at.getTime()))).toISOString();
  const owned = batch.owner === undefined ? sql`` : sql` and owner = ${batch.owner}`;

  const ctes: SQL[] = [];
  if (finish !== undefined) {
    const t = finish.trace;
    const stats = t.stats === undefined || t.stats === null ? null : JSON.stringify(t.stats);
    ctes.push(sql`t as (
      update ${traces} set
        status = ${t.status},
        finished_at = ${now}::timestamptz,
        duration_ms = greatest(0, round(extract(epoch from (${now}::timestamptz - started_at)) * 1000))::int,
        summary = ${t.summary ?? null},
        stats = ${stats}::jsonb,
        error = ${t.error ?? null},
        last_seq = last_seq + ${n}::int,
        last_event_at = greatest(last_event_at, coalesce(${latest}::timestamptz, last_event_at))
      where id = ${traceId} and status = 'running'${owned}
      returning last_seq, ${n === 0 ? sql`null` : sql`pg_notify(${ctx.channel}, ${`${traceId}:`} || last_seq)`} as notified
    )`);
  } else if (n > 0) {
    // The update locks the row: concurrent batches of one trace number their events one after the other.
    ctes.push(sql`t as (
      update ${traces} set
        last_seq = last_seq + ${n}::int,
        last_event_at = greatest(last_event_at, ${latest}::timestamptz)
      where id = ${traceId}${owned}
      returning last_seq, pg_notify(${ctx.channel}, ${`${traceId}:`} || last_seq) as notified
    )`);
  } else {
    // Nothing to number: share-lock the row, so a concurrent delete either waits or leaves nothing written.
    ctes.push(sql`t as (
      select last_seq from ${traces} where id = ${traceId}${owned} for share
    )`);
  }
  if (n > 0) {
    const rows = items.map((item, k) => ({
      k: k + 1,
      type: item.v.type,
      at: item.at.toISOString(),
      data: item.v.data,
    }));
    ctes.push(sql`e as (
      insert into ${events} (trace_id, seq, type, at, data)
      select ${traceId}, t.last_seq - ${n}::int + x.k, x.type, x.at, x.data
      from t cross join jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(k int, type text, at timestamptz, data jsonb)
    )`);
  }
  let group = 0;
  for (const upserts of groupByColumns(mergeNodeUpserts(batch.nodes))) {
    const keys = Object.keys(upserts[0]!).filter((key) => key !== 'node_id');
    const columns = keys.map((key) => NODE_COLUMNS[key]!);
    const rows = upserts.map((u) =>
      Object.fromEntries([
        ['node_id', u.node_id],
        ...keys.map((key, i) => [columns[i]!.name, recordValue(u[key as keyof NodeUpsert])]),
      ]),
    );
    const names = sql.raw(columns.map((c) => `, "${c.name}"`).join(''));
    const picked = sql.raw(columns.map((c) => `, x."${c.name}"`).join(''));
    const update =
      columns.length === 0
        ? sql`do nothing`
        : sql`do update set ${sql.raw(columns.map((c) => `"${c.name}" = excluded."${c.name}"`).join(', '))}`;
    const shape = columns.length === 0 ? sql`node_id text` : sql`node_id text, ${recordShape(columns)}`;
    ctes.push(sql`${sql.raw(`n${group++}`)} as (
      insert into ${nodes} (trace_id, node_id${names})
      select ${traceId}, x.node_id${picked}
      from t cross join jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(${shape})
      on conflict (trace_id, node_id) ${update}
    )`);
  }
  const plan = batch.plan;
  if (plan !== undefined) {
    const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));
    ctes.push(sql`p as (
      insert into ${plans} (trace_id, raw, normalized, warnings, degraded, levels, provider, attempts, created_at)
      select ${traceId}, ${json(plan.raw)}::jsonb, ${JSON.stringify(plan.plan)}::jsonb,
        ${JSON.stringify(plan.warnings)}::jsonb, ${plan.degraded}, ${JSON.stringify(plan.levels)}::jsonb,
        ${plan.provider ?? null}, ${JSON.stringify(plan.attempts ?? [])}::jsonb, ${now}::timestamptz
      from t
      on conflict (trace_id) do update set raw = excluded.raw, normalized = excluded.normalized,
        warnings = excluded.warnings, degraded = excluded.degraded, levels = excluded.levels,
        provider = excluded.provider, attempts = excluded.attempts, created_at = excluded.created_at
    )`);
  }
  const result = await db.execute(sql`with ${sql.join(ctes, sql`, `)} select last_seq from t`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{
    last_seq: number | string;
  }>;
  if (rows.length === 0) return undefined;
  const lastSeq = Number(rows[0]!.last_seq);
  const first = lastSeq - n + 1;
  return {
    finished: finish !== undefined,
    events: items.map((item, k) => ({
      trace_id: traceId,
      seq: first + k,
      at: item.at,
      ...item.v,
    })) as BatchResult['events'],
  };
}
