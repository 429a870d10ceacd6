import { randomBytes } from 'node:crypto';
import { openPostgresTraceStore } from '@agent-reach/orchestrator';
import { collect, traceStoreContract } from '@agent-reach/orchestrator/testing';
import { isReachError } from '@agent-reach/sdk/protocol';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/ports.js';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// A schema of our own, so parallel runs never see each other's tables or notifications.
const schema = `trace_test_${process.pid}_${randomBytes(4).toString('hex')}`;
let admin: postgres.Sql | undefined;

async function adminSql(): Promise<postgres.Sql> {
  admin ??= postgres(url, { max: 1, onnotice: () => undefined });
  return admin;
}

traceStoreContract(`Postgres (${url.replace(/\/\/[^@]*@/, '//')})`, {
  setup: async () => {
    await (await adminSql())`select 1`;
  },
  open: async (clock) => {
    const store = await openPostgresTraceStore({ url, schema, clock, max: 4 });
    const sql = await adminSql();
    await sql.unsafe(`truncate "${schema}".traces, "${schema}".plans, "${schema}".nodes, "${schema}".events`);
    return store;
  },
  teardown: async () => {
    const sql = await adminSql();
    await sql.unsafe(`drop schema if exists "${schema}" cascade`);
    await sql.end({ timeout: 5 });
  },
});

describe('Postgres trace store across processes', () => {
  const crossSchema = `${schema}_x`;
  let a: Awaited<ReturnType<typeof openPostgresTraceStore>>;
  let b: Awaited<ReturnType<typeof openPostgresTraceStore>>;
  beforeAll(async () => {
    a = await openPostgresTraceStore({ url, schema: crossSchema, max: 4 });
    b = await openPostgresTraceStore({ url, schema: crossSchema, max: 4 });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    await sql.unsafe(`drop schema if exists "${crossSchema}" cascade`);
    await sql.end({ timeout: 5 });
  });

  it('pushes events written by another store instance through LISTEN/NOTIFY', async () => {
    const t = await b.createTrace({ task: 'cross' });
    const sub = collect(a, t.id, 2);
    await sub.ready;
    await b.appendEvent(t.id, { type: 'trace_started', data: { task: 'cross' } });
    await b.appendEvent(t.id, { type: 'node_started', data: { node_id: 'n1', capability: 'research' } });
    const got = await sub.done;
    sub.close();
    expect(got.map((e) => [e.seq, e.type])).toEqual([
      [1, 'trace_started'],
      [2, 'node_started'],
    ]);
  });

  it('keeps seqs unique and consecutive when two instances append at once', async () => {
    const t = await a.createTrace({ task: 'race' });
    const ev = (i: number) => ({ type: 'node_retry' as const, data: { node_id: `n${i}`, attempt: 1 } });
    await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).appendEvent(t.id, ev(i))));
    expect((await a.eventsAfter(t.id, 0)).map((e) => e.seq)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
  });

  it('stores JSON as jsonb objects, not strings', async () => {
    const t = await a.createTrace({ task: 'json', meta: { provider: 'x' } });
    await a.appendEvent(t.id, { type: 'trace_started', data: { task: 'json' } });
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    const rows = await sql.unsafe(
      `select jsonb_typeof(data) as d, (select jsonb_typeof(meta) from "${crossSchema}".traces where id = $1) as m
       from "${crossSchema}".events where trace_id = $1`,
      [t.id],
    );
    await sql.end({ timeout: 5 });
    expect(rows[0]).toEqual({ d: 'object', m: 'object' });
  });

  it('reports an unreachable Postgres as STORE_UNAVAILABLE', async () => {
    const port = await freePort();
    const error = await openPostgresTraceStore({ url: `postgres://postgres@127.0.0.1:${port}/test` }).catch(
      (e) => e,
    );
    expect(isReachError(error) && error.code).toBe('STORE_UNAVAILABLE');
  });
});
