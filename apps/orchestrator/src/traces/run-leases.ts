import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { nodes, traces } from './schema.js';
import { endedAt, type TraceDb } from './trace-batch.js';

/** A run an orchestrator just took over. */
export interface ClaimedRun {
  id: string;
  /** Who owned it before (null when it was handed over or never owned). */
  previous_owner: string | null;
  /** How many times it has been taken over, this time included. */
  resumes: number;
}

/** `clock_timestamp() + ms`: lease deadlines use the database's clock, the one every orchestrator shares. */
export function leaseDeadline(ttlMs: number): SQL {
  return sql`clock_timestamp() + ${Math.round(ttlMs)} * interval '1 millisecond'`;
}

const rowsOf = <T>(result: unknown): T[] =>
  (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];

/**
 * Pushes the leases of runs `ids` that `owner` still holds to now + ttl; returns those ids. Only runs
 * going on in the owner's process are renewed: one it claimed but could not resume lapses again.
 */
export async function renewLeases(
  db: TraceDb,
  owner: string,
  ids: readonly string[],
  ttlMs: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .update(traces)
    .set({ lease_until: leaseDeadline(ttlMs) })
    .where(and(eq(traces.owner, owner), eq(traces.status, 'running'), inArray(traces.id, [...ids])))
    .returning({ id: traces.id });
  return rows.map((r) => r.id);
}

/**
 * Takes over up to `limit` running runs whose lease has passed (their owner stopped renewing, or handed
 * them over), oldest first. `FOR UPDATE SKIP LOCKED`: two orchestrators scanning at once never claim
 * the same run, and neither waits for the other.
 */
export async function claimExpiredRuns(
  db: TraceDb,
  owner: string,
  ttlMs: number,
  limit: number,
): Promise<ClaimedRun[]> {
  const result = await db.execute(sql`
    with expired as (
      select id, owner from ${traces}
      where status = 'running' and (lease_until is null or lease_until < clock_timestamp())
      order by started_at
      limit ${limit}
      for update skip locked
    )
    update ${traces} t set owner = ${owner}, lease_until = ${leaseDeadline(ttlMs)}, resumes = t.resumes + 1
    from expired
    where t.id = expired.id
    returning t.id, expired.owner as previous_owner, t.resumes`);
  return rowsOf<{ id: string; previous_owner: string | null; resumes: number | string }>(result).map((r) => ({
    id: r.id,
    previous_owner: r.previous_owner,
    resumes: Number(r.resumes),
  }));
}

/**
 * Gives up `owner`'s running runs (all, or those in `ids`) with their lease already passed, so the next
 * scan of any orchestrator takes them over at once (graceful shutdown).
 */
export async function releaseRuns(db: TraceDb, owner: string, ids?: readonly string[]): Promise<string[]> {
  if (ids !== undefined && ids.length === 0) return [];
  const rows = await db
    .update(traces)
    .set({ owner: null, lease_until: sql`clock_timestamp()` })
    .where(
      and(
        eq(traces.owner, owner),
        eq(traces.status, 'running'),
        ...(ids === undefined ? [] : [inArray(traces.id, [...ids])]),
      ),
    )
    .returning({ id: traces.id });
  return rows.map((r) => r.id);
}

/**
 * Ends runs nobody resumed: running, their lease passed (no owner renews it) and no event since
 * `cutoff`. Each ends `aborted`; its nodes still `running` become `interrupted` and `pending` ones
 * `skipped`, so no node is left claiming to run. Returns the ids it ended.
 */
export async function reapUnresumed(db: TraceDb, now: Date, cutoff: Date, reason: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    const reaped = await tx
      .update(traces)
      .set({ status: 'aborted', ...endedAt(now), error: reason, owner: null, lease_until: null })
      .where(
        and(
          eq(traces.status, 'running'),
          sql`(${traces.lease_until} is null or ${traces.lease_until} < clock_timestamp())`,
          sql`${traces.last_event_at} < ${cutoff.toISOString()}::timestamptz`,
        ),
      )
      .returning({ id: traces.id });
    const ids = reaped.map((r) => r.id);
    if (ids.length > 0) await settleNodes(tx, ids, now, reason);
    return ids;
  });
}

/** Leaves no node of `ids` running or pending: running → interrupted, pending → skipped. */
export async function settleNodes(db: TraceDb, ids: readonly string[], now: Date, reason: string) {
  await db
    .update(nodes)
    .set({ status: 'interrupted', finished_at: now, error: reason, in_flight: null })
    .where(and(inArray(nodes.trace_id, [...ids]), eq(nodes.status, 'running')));
  await db
    .update(nodes)
    .set({ status: 'skipped', error: reason })
    .where(and(inArray(nodes.trace_id, [...ids]), eq(nodes.status, 'pending')));
}
