import { and, desc, eq, gte, ilike, inArray, like, lt, or, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import { decodeCursor, encodeCursor, type ListTracesQuery } from './list-query.js';
import { type TraceRow, traces } from './schema.js';

/** One page of traces, newest first. */
export interface TracePage {
  items: TraceRow[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A search that could be (the start of) a trace id: 4 to 32 hex digits. */
const TRACE_ID_PREFIX = /^[0-9a-f]{4,32}$/i;

/** Runs a validated list query with keyset paging on (started_at, id). */
export async function listTraces(
  db: PgDatabase<PgQueryResultHKT>,
  query: z.output<typeof ListTracesQuery>,
): Promise<TracePage> {
  const where: SQL[] = [];
  if (query.status !== undefined) {
    where.push(inArray(traces.status, Array.isArray(query.status) ? query.status : [query.status]));
  }
  if (query.q !== undefined) {
    const pattern = `%${escapeLike(query.q)}%`;
    const matches = [ilike(traces.task, pattern), ilike(traces.summary, pattern)];
    // One search box: a trace id (or its first digits, as shown in lists) finds that trace too.
    if (TRACE_ID_PREFIX.test(query.q)) matches.push(like(traces.id, `${query.q.toLowerCase()}%`));
    where.push(or(...matches)!);
  }
  if (query.since !== undefined) where.push(gte(traces.started_at, query.since));
  if (query.until !== undefined) where.push(lt(traces.started_at, query.until));
  if (query.cursor !== undefined) {
    const cursor = decodeCursor(query.cursor);
    if (!cursor.ok) throw cursor.error;
    const { started_at, id } = cursor.value;
    where.push(
      or(lt(traces.started_at, started_at), and(eq(traces.started_at, started_at), lt(traces.id, id)))!,
    );
  }
  const rows = await db
    .select()
    .from(traces)
    .where(and(...where))
    .orderBy(desc(traces.started_at), desc(traces.id))
    .limit(query.limit + 1);
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  const more = rows.length > query.limit && last !== undefined;
  return { items, next_cursor: more ? encodeCursor({ started_at: last.started_at, id: last.id }) : null };
}
