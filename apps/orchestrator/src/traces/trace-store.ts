import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { type TraceEvent, TraceEventInput } from './events.js';
import { CreateTraceInput, FinishTraceInput, NodeUpsert, SavePlanInput } from './inputs.js';
import { ListTracesQuery } from './list-query.js';
import { listTraces, type TracePage } from './list-traces.js';
import { events, type NodeRow, nodes, type PlanRow, plans, type TraceRow, traces } from './schema.js';
import {
  type EventListener,
  type EventNotifier,
  SubscriptionHub,
  type TraceSubscription,
} from './subscriptions.js';
import { newTraceId, TraceId } from './trace-id.js';

/** Any drizzle Postgres database (postgres.js or PGlite). */
export type TraceDb = PgDatabase<PgQueryResultHKT>;

/** Wall-clock time for stored timestamps, injected so tests can move it. */
export interface WallClock {
  now(): number;
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
  clock?: WallClock;
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

const notFound = (traceId: string) =>
  err(new ReachError('NOT_FOUND', `no trace ${traceId}`, { data: { traceId } }));

/**
 * The trace store (seed 2.9, ARCHITECTURE §8) on any drizzle Postgres driver: runs, plans, nodes and
 * a per-trace numbered event log, pushed to subscribers through LISTEN/NOTIFY.
 * Writes about a trace that does not exist come back as NOT_FOUND values; malformed input throws
 * VALIDATION_FAILED.
 */
export class TraceStore {
  readonly #db: TraceDb;
  readonly #channel: string;
  readonly #clock: WallClock;
  readonly #close: () => Promise<void>;
  readonly #hub: SubscriptionHub;

  constructor(deps: TraceStoreDeps) {
    this.#db = deps.db;
    this.#channel = deps.channel;
    this.#clock = deps.clock ?? { now: () => Date.now() };
    this.#close = deps.close;
    this.#hub = new SubscriptionHub(deps.notifier, deps.channel, {
      currentSeq: (id) => this.#currentSeq(id),
      eventsAfter: (id, seq) => this.eventsAfter(id, seq),
    });
  }

  /** Starts a run in status `running`; CONFLICT when the id is taken. */
  async createTrace(input: CreateTraceInput): Promise<TraceRow> {
    const v = parse(CreateTraceInput, input, 'trace');
    const id = v.id === undefined ? newTraceId() : parse(TraceId, v.id, 'trace id');
    const now = new Date(this.#clock.now());
    const [row] = await this.#db
      .insert(traces)
      .values({ id, task: v.task, meta: v.meta ?? {}, started_at: now, last_event_at: now })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new ReachError('CONFLICT', `trace ${id} exists`, { data: { traceId: id } });
    return row;
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

  /**
   * Appends events in order with consecutive seqs: one seq bump, one multi-row INSERT and one NOTIFY
   * per event, all in one transaction (a queued writer's batch costs one round trip, not one per event).
   */
  async appendEvents(
    traceId: string,
    batch: ReadonlyArray<{ event: TraceEventInput; at?: Date }>,
  ): Promise<Result<TraceEvent[]>> {
    if (batch.length === 0) return ok([]);
    const items = batch.map((b) => ({
      v: parse(TraceEventInput, b.event, 'event'),
      // A queued writer passes when the event happened, so `at` is not the time of the write.
      at: b.at ?? new Date(this.#clock.now()),
    }));
    const latest = new Date(Math.max(...items.map((i) => i.at.getTime())));
    return this.#db.transaction(async (tx) => {
      // The row lock on the trace serialises appends, so seqs are unique and consecutive.
      const [bumped] = await tx
        .update(traces)
        .set({
          last_seq: sql`${traces.last_seq} + ${items.length}`,
          last_event_at: sql`greatest(${traces.last_event_at}, ${latest.toISOString()}::timestamptz)`,
        })
        .where(eq(traces.id, traceId))
        .returning({ seq: traces.last_seq });
      if (!bumped) return notFound(traceId);
      const first = bumped.seq - items.length + 1;
      const rows = items.map((i, k) => ({
        trace_id: traceId,
        seq: first + k,
        type: i.v.type,
        at: i.at,
        data: i.v.data,
      }));
      await tx.insert(events).values(rows);
      await tx.execute(
        sql`select pg_notify(${this.#channel}, ${`${traceId}:`} || s) from generate_series(${first}::int, ${bumped.seq}::int) as s`,
      );
      return ok(rows.map((r, k) => ({ ...r, ...items[k]!.v }) as TraceEvent));
    });
  }

  /** Stores (or replaces) the plan of a run. */
  async savePlan(traceId: string, input: SavePlanInput): Promise<Result<PlanRow>> {
    const v = parse(SavePlanInput, input, 'plan');
    const values = {
      raw: v.raw ?? null,
      normalized: v.plan,
      warnings: v.warnings,
      degraded: v.degraded,
      levels: v.levels,
      provider: v.provider ?? null,
      attempts: v.attempts ?? [],
      created_at: new Date(this.#clock.now()),
    };
    return this.#withTrace(traceId, async (tx) => {
      const [row] = await tx
        .insert(plans)
        .values({ trace_id: traceId, ...values })
        .onConflictDoUpdate({ target: plans.trace_id, set: values })
        .returning();
      return row!;
    });
  }

  /** Inserts a node or updates the fields given; fields left out keep their value. */
  async upsertNode(traceId: string, input: NodeUpsert): Promise<Result<NodeRow>> {
    const r = await this.upsertNodes(traceId, [input]);
    return r.ok ? ok(r.value[0]!) : r;
  }

  /** Applies node upserts in order, in one transaction (a queued writer's batch). */
  async upsertNodes(traceId: string, inputs: readonly NodeUpsert[]): Promise<Result<NodeRow[]>> {
    const values = inputs.map((input) => parse(NodeUpsert, input, 'node'));
    return this.#withTrace(traceId, async (tx) => {
      const rows: NodeRow[] = [];
      for (const v of values) {
        const { node_id: _id, ...set } = v;
        const [row] = await tx
          .insert(nodes)
          .values({ ...v, trace_id: traceId })
          .onConflictDoUpdate({ target: [nodes.trace_id, nodes.node_id], set })
          .returning();
        rows.push(row!);
      }
      return rows;
    });
  }

  /** Ends a running trace; CONFLICT when it already ended (e.g. reaped), NOT_FOUND when it is gone. */
  async finishTrace(traceId: string, input: FinishTraceInput): Promise<Result<TraceRow>> {
    const v = parse(FinishTraceInput, input, 'finish');
    const now = new Date(this.#clock.now());
    const [row] = await this.#db
      .update(traces)
      .set({
        status: v.status,
        finished_at: now,
        duration_ms: sql`greatest(0, round(extract(epoch from (${now.toISOString()}::timestamptz - ${traces.started_at})) * 1000))::int`,
        summary: v.summary ?? null,
        stats: v.stats ?? null,
        error: v.error ?? null,
      })
      .where(and(eq(traces.id, traceId), eq(traces.status, 'running')))
      .returning();
    if (row) return ok(row);
    const exists = await this.#db
      .select({ status: traces.status })
      .from(traces)
      .where(eq(traces.id, traceId));
    if (exists.length === 0) return notFound(traceId);
    return err(
      new ReachError('CONFLICT', `trace ${traceId} already ended as ${exists[0]!.status}`, {
        data: { traceId },
      }),
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
   * Aborts running traces whose last event is older than `olderThanMs` (not their start, so long runs
   * that still report live on); each gets a `trace_finished` event. Returns the aborted ids.
   */
  async reapStale(olderThanMs: number = STALE_AFTER_MS): Promise<string[]> {
    const now = new Date(this.#clock.now());
    const cutoff = new Date(now.getTime() - olderThanMs);
    const reaped = await this.#db
      .update(traces)
      .set({
        status: 'aborted',
        finished_at: now,
        duration_ms: sql`greatest(0, round(extract(epoch from (${now.toISOString()}::timestamptz - ${traces.started_at})) * 1000))::int`,
        error: `no event for ${Math.round(olderThanMs / 1000)} s — aborted as stale`,
      })
      .where(
        and(
          eq(traces.status, 'running'),
          sql`${traces.last_event_at} < ${cutoff.toISOString()}::timestamptz`,
        ),
      )
      .returning({ id: traces.id });
    for (const { id } of reaped) {
      await this.appendEvent(id, { type: 'trace_finished', data: { status: 'aborted', reason: 'stale' } });
    }
    return reaped.map((r) => r.id);
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

  // Writers share-lock the trace row, so a concurrent delete either waits or leaves them NOT_FOUND: no orphans.
  async #withTrace<T>(traceId: string, write: (tx: TraceDb) => Promise<T>): Promise<Result<T>> {
    return this.#db.transaction(async (tx) => {
      const [found] = await tx
        .select({ id: traces.id })
        .from(traces)
        .where(eq(traces.id, traceId))
        .for('share');
      if (!found) return notFound(traceId);
      return ok(await write(tx));
    });
  }
}
