import { type Clock, systemClock } from '@agent-reach/sdk/clock';
import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import { and, asc, eq, getTableColumns, gt, inArray, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { type TraceEvent, TraceEventInput } from './events.js';
import { CreateTraceInput, FinishTraceInput, NodeUpsert, SavePlanInput } from './inputs.js';
import { ListTracesQuery } from './list-query.js';
import { listTraces, type TracePage } from './list-traces.js';
import {
  type ClaimedRun,
  claimExpiredRuns,
  leaseDeadline,
  reapUnresumed,
  releaseRuns,
  renewLeases,
} from './run-leases.js';
import { events, type NodeRow, nodes, type PlanRow, plans, type TraceRow, traces } from './schema.js';
import {
  type EventListener,
  type EventNotifier,
  SubscriptionHub,
  type TraceSubscription,
} from './subscriptions.js';
import {
  type BatchResult,
  type CheckedBatch,
  notifyLastSeq,
  type TraceBatch,
  type TraceDb,
  writeBatchTx,
} from './trace-batch.js';
import { newTraceId, TraceId } from './trace-id.js';
import { writeInOneStatement } from './trace-statement.js';

export type { TraceDb } from './trace-batch.js';

/** Who runs a new trace, and for how long before another orchestrator may take it over. */
export interface RunLease {
  owner: string;
  ttlMs: number;
}

/** A trace with everything it recorded. */
export interface TraceDetail {
  trace: TraceRow;
  plan: PlanRow | null;
  nodes: NodeRow[];
  events: TraceEvent[];
}

/** What a TraceStore is built from; the `open…TraceStore` functions assemble it. */
export interface TraceStoreDeps {
  db: TraceDb;
  notifier: EventNotifier;
  /** The LISTEN/NOTIFY channel for new events. */
  channel: string;
  /** @default Date.now */
  clock?: Pick<Clock, 'wallNow'>;
  /** Releases the driver. */
  close: () => Promise<void>;
}

/** The seed's reaper threshold: a running trace with no event for 300 s is aborted (seed 2.9). */
export const STALE_AFTER_MS = 300_000;

function parse<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.join('.') || what;
  throw new ReachError('VALIDATION_FAILED', `${what}: ${path}: ${issue?.message ?? 'invalid'}`, {
    data: { issues: parsed.error.issues },
  });
}

/**
 * The trace store (seed 2.9, ARCHITECTURE §8) on any drizzle Postgres driver: runs, plans, nodes and
 * a per-trace numbered event log, pushed to subscribers through LISTEN/NOTIFY.
 * Writes about a trace that does not exist come back as NOT_FOUND values; malformed input throws
 * VALIDATION_FAILED.
 */
export class TraceStore {
  readonly #db: TraceDb;
  readonly #channel: string;
  readonly #clock: Pick<Clock, 'wallNow'>;
  readonly #close: () => Promise<void>;
  readonly #hub: SubscriptionHub;

  constructor(deps: TraceStoreDeps) {
    this.#db = deps.db;
    this.#channel = deps.channel;
    this.#clock = deps.clock ?? systemClock;
    this.#close = deps.close;
    this.#hub = new SubscriptionHub(deps.notifier, deps.channel, {
      currentSeq: (id) => this.#currentSeq(id),
      eventsAfter: (id, seq) => this.eventsAfter(id, seq),
    });
  }

  /**
   * Starts a run in status `running`, with `firstEvent` (if given) as event 1 in the same transaction;
   * CONFLICT when the id is taken.
   */
  async createTrace(
    input: CreateTraceInput,
    firstEvent?: TraceEventInput,
    lease?: RunLease,
  ): Promise<TraceRow> {
    const v = parse(CreateTraceInput, input, 'trace');
    const id = v.id === undefined ? newTraceId() : parse(TraceId, v.id, 'trace id');
    const first = firstEvent === undefined ? undefined : parse(TraceEventInput, firstEvent, 'event');
    const now = new Date(this.#clock.wallNow());
    const values = {
      id,
      task: v.task,
      meta: v.meta ?? {},
      started_at: now,
      last_event_at: now,
      ...(lease === undefined ? {} : { owner: lease.owner, lease_until: leaseDeadline(lease.ttlMs) }),
    };
    const row =
      first === undefined
        ? (await this.#db.insert(traces).values(values).onConflictDoNothing().returning())[0]
        : await this.#createWithEvent({ ...values, last_seq: 1 }, first);
    if (!row) throw new ReachError('CONFLICT', `trace ${id} exists`, { data: { traceId: id } });
    return row;
  }

  /**
   * Writes what a run queued — events, node changes, the plan and optionally its end — in one
   * transaction; NOT_FOUND when the trace is gone, VALIDATION_FAILED (thrown) for malformed input.
   */
  async writeBatch(traceId: string, batch: TraceBatch): Promise<Result<BatchResult>> {
    const now = new Date(this.#clock.wallNow());
    const checked: CheckedBatch = {
      events: (batch.events ?? []).map((b) => ({
        v: parse(TraceEventInput, b.event, 'event'),
        // A queued writer passes when the event happened, so `at` is not the time of the write.
        at: b.at ?? now,
      })),
      nodes: (batch.nodes ?? []).map((n) => parse(NodeUpsert, n, 'node')),
      plan: batch.plan === undefined ? undefined : parse(SavePlanInput, batch.plan, 'plan'),
      finish:
        batch.finish === undefined
          ? undefined
          : {
              trace: parse(FinishTraceInput, batch.finish.trace, 'finish'),
              event:
                batch.finish.event === undefined
                  ? undefined
                  : { v: parse(TraceEventInput, batch.finish.event, 'event'), at: batch.finish.at ?? now },
            },
      owner: batch.owner,
    };
    const ctx = this.#ctx(now);
    // The usual case (the run is there, still this owner's, and running when the batch ends it): one
    // statement. Anything else goes through the transaction below, which tells the cases apart.
    const done = await writeInOneStatement(this.#db, traceId, checked, ctx);
    if (done !== undefined) return ok(done);
    return this.#db.transaction((tx) => writeBatchTx(tx, traceId, checked, ctx));
  }

  /** Appends an event with the trace's next seq and notifies subscribers in the same transaction. */
  async appendEvent(
    traceId: string,
    event: TraceEventInput,
    options: { at?: Date } = {},
  ): Promise<Result<TraceEvent>> {
    const r = await this.appendEvents(traceId, [{ event, ...options }]);
    return r.ok ? ok(r.value[0]!) : r;
  }

  /** Appends events in order with consecutive seqs, in one transaction (see `writeBatch`). */
  async appendEvents(
    traceId: string,
    batch: ReadonlyArray<{ event: TraceEventInput; at?: Date }>,
  ): Promise<Result<TraceEvent[]>> {
    if (batch.length === 0) return ok([]);
    const r = await this.writeBatch(traceId, { events: batch });
    return r.ok ? ok(r.value.events) : r;
  }

  /** Stores (or replaces) the plan of a run. */
  async savePlan(traceId: string, input: SavePlanInput): Promise<Result<PlanRow>> {
    const r = await this.writeBatch(traceId, { plan: input });
    if (!r.ok) return r;
    const [row] = await this.#db.select().from(plans).where(eq(plans.trace_id, traceId));
    return ok(row!);
  }

  /** Inserts a node or updates the fields given; fields left out keep their value. */
  async upsertNode(traceId: string, input: NodeUpsert): Promise<Result<NodeRow>> {
    const r = await this.upsertNodes(traceId, [input]);
    return r.ok ? ok(r.value[0]!) : r;
  }

  /** Applies node upserts in order, in one transaction; one row per node, in order of first mention. */
  async upsertNodes(traceId: string, inputs: readonly NodeUpsert[]): Promise<Result<NodeRow[]>> {
    const r = await this.writeBatch(traceId, { nodes: inputs });
    if (!r.ok) return r;
    const ids = [...new Set(inputs.map((n) => n.node_id))];
    const rows = await this.#db
      .select()
      .from(nodes)
      .where(and(eq(nodes.trace_id, traceId), inArray(nodes.node_id, ids)));
    return ok(ids.map((id) => rows.find((row) => row.node_id === id)!));
  }

  /** Ends a running trace; CONFLICT when it already ended (e.g. reaped), NOT_FOUND when it is gone. */
  async finishTrace(traceId: string, input: FinishTraceInput): Promise<Result<TraceRow>> {
    const r = await this.writeBatch(traceId, { finish: { trace: input } });
    if (!r.ok) return r;
    const [row] = await this.#db.select().from(traces).where(eq(traces.id, traceId));
    if (r.value.finished) return ok(row!);
    return err(
      new ReachError('CONFLICT', `trace ${traceId} already ended as ${row?.status}`, { data: { traceId } }),
    );
  }

  /** A trace with its plan, nodes and every event; null when there is none. */
  async getTrace(traceId: string): Promise<TraceDetail | null> {
    const [trace] = await this.#db.select().from(traces).where(eq(traces.id, traceId));
    if (!trace) return null;
    const [plan] = await this.#db.select().from(plans).where(eq(plans.trace_id, traceId));
    const nodeRows = await this.#db
      .select()
      .from(nodes)
      .where(eq(nodes.trace_id, traceId))
      .orderBy(sql`${nodes.layer} asc nulls last`, asc(nodes.node_id));
    return { trace, plan: plan ?? null, nodes: nodeRows, events: await this.eventsAfter(traceId, 0) };
  }

  /** Traces newest first with filters and keyset paging; BAD_REQUEST for a foreign cursor. */
  async listTraces(query: ListTracesQuery = {}): Promise<TracePage> {
    return listTraces(this.#db, parse(ListTracesQuery, query, 'query'));
  }

  /** Deletes a trace and everything it recorded; false when there was none. */
  async deleteTrace(traceId: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const gone = await tx.delete(traces).where(eq(traces.id, traceId)).returning({ id: traces.id });
      await tx.delete(events).where(eq(events.trace_id, traceId));
      await tx.delete(nodes).where(eq(nodes.trace_id, traceId));
      await tx.delete(plans).where(eq(plans.trace_id, traceId));
      return gone.length > 0;
    });
  }

  /** Events with seq greater than `afterSeq`, in order (SSE replay from `Last-Event-ID`). */
  async eventsAfter(traceId: string, afterSeq: number, limit = 10_000): Promise<TraceEvent[]> {
    const rows = await this.#db
      .select()
      .from(events)
      .where(and(eq(events.trace_id, traceId), gt(events.seq, afterSeq)))
      .orderBy(asc(events.seq))
      .limit(limit);
    return rows as TraceEvent[];
  }

  /**
   * Aborts the running traces nobody resumed: no owner renews their lease and their last event is
   * older than `olderThanMs` (not their start, so long runs that still report live on). Each gets a
   * `trace_finished` event, and none of its nodes is left `running` or `pending`. Returns the ids.
   */
  async reapStale(olderThanMs: number = STALE_AFTER_MS): Promise<string[]> {
    const now = new Date(this.#clock.wallNow());
    const cutoff = new Date(now.getTime() - olderThanMs);
    const reason = `no owner and no event for ${Math.round(olderThanMs / 1000)} s — aborted as stale`;
    const reaped = await reapUnresumed(this.#db, now, cutoff, reason);
    for (const id of reaped) {
      await this.appendEvent(id, { type: 'trace_finished', data: { status: 'aborted', reason: 'stale' } });
    }
    return reaped;
  }

  /** Renews the runs `ids` that `owner` still holds; returns those (the others were taken over). */
  renewLeases(owner: string, ids: readonly string[], ttlMs: number): Promise<string[]> {
    return renewLeases(this.#db, owner, ids, ttlMs);
  }

  /** Takes over up to `limit` running runs whose owner stopped renewing (or handed them over). */
  claimExpiredRuns(owner: string, ttlMs: number, limit: number): Promise<ClaimedRun[]> {
    return claimExpiredRuns(this.#db, owner, ttlMs, limit);
  }

  /** Hands `owner`'s running runs (or those in `ids`) over: any orchestrator's next scan takes them. */
  releaseRuns(owner: string, ids?: readonly string[]): Promise<string[]> {
    return releaseRuns(this.#db, owner, ids);
  }

  /** Pushes a trace's new events to `listener`: after `afterSeq` when given (replay), else from now on. */
  subscribe(
    traceId: string,
    listener: EventListener,
    options: { afterSeq?: number } = {},
  ): Promise<TraceSubscription> {
    return this.#hub.subscribe(traceId, listener, options.afterSeq);
  }

  /** Stops subscriptions and closes the driver. */
  async close(): Promise<void> {
    await this.#hub.close();
    await this.#close();
  }

  async #currentSeq(traceId: string): Promise<number> {
    const [row] = await this.#db.select({ seq: traces.last_seq }).from(traces).where(eq(traces.id, traceId));
    return row?.seq ?? 0;
  }

  // One statement (no BEGIN/COMMIT round trips): the trace row, its NOTIFY and event 1; none on conflict.
  async #createWithEvent(
    values: PgInsertValue<typeof traces> & { id: string; started_at: Date },
    first: TraceEventInput,
  ): Promise<TraceRow | undefined> {
    const db = this.#db;
    const created = db.$with('created').as(
      db
        .insert(traces)
        .values(values)
        .onConflictDoNothing()
        .returning({
          ...getTableColumns(traces),
          notified: notifyLastSeq(this.#channel, values.id).as('notified'),
        }),
    );
    const firstEvent = db.$with('first_event').as(
      db.insert(events).select((qb) =>
        qb
          .select({
            trace_id: created.id,
            seq: sql<number>`1`.as('seq'),
            type: sql<string>`${first.type}`.as('type'),
            at: sql<Date>`${values.started_at.toISOString()}::timestamptz`.as('at'),
            data: sql<unknown>`${JSON.stringify(first.data)}::jsonb`.as('data'),
          })
          .from(created),
      ),
    );
    const [row] = await db.with(created, firstEvent).select().from(created);
    if (!row) return undefined;
    const { notified: _, ...trace } = row;
    return trace;
  }

  #ctx(now = new Date(this.#clock.wallNow())) {
    return { channel: this.#channel, now };
  }
}
