import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../testing/trace-store-contract/helpers.js';
import { pgliteTraceStore, type TraceBatch, type TraceStore } from './index.js';
import { TraceWriter, type TraceWriterStore } from './trace-writer.js';

let client: PGlite;
let store: TraceStore;

beforeAll(async () => {
  client = await PGlite.create();
  store = await pgliteTraceStore(client);
}, 60_000);
afterAll(async () => {
  await store.close();
  await client.close();
});
beforeEach(async () => {
  await client.exec('truncate traces, plans, nodes, events');
});

/** The real store, with every batch it is asked to write kept. */
function counted(): TraceWriterStore & { batches: TraceBatch[] } {
  const batches: TraceBatch[] = [];
  return {
    batches,
    writeBatch: (id, batch) => {
      batches.push(batch);
      return store.writeBatch(id, batch);
    },
  };
}

const layer = (n: number) => ({
  type: 'layer_started' as const,
  data: { layer: n, nodes: [], mode: 'serial' as const },
});
const end = {
  trace: { status: 'ok' as const, summary: 's' },
  event: { type: 'trace_finished' as const, data: { status: 'ok' as const } },
};

describe('TraceWriter', () => {
  it('returns at once and writes what piled up within the window as one transaction', async () => {
    const t = await store.createTrace({ task: 't' }, { type: 'trace_started', data: { task: 't' } });
    const s = counted();
    const writer = new TraceWriter(s, t.id, { flushDelayMs: 30 });
    await writer.event(layer(0));
    await writer.node('n1', { capability: 'writing', status: 'pending', layer: 0 } as never);
    await writer.node('n1', { status: 'running', started_at: new Date() });
    await writer.plan({ raw: null, plan: { nodes: [] }, warnings: [], degraded: false, levels: [['n1']] });
    await writer.event(layer(1));
    expect(s.batches).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 80));
    expect(s.batches).toHaveLength(1);
    const detail = await store.getTrace(t.id);
    expect(detail!.events.map((e) => [e.seq, e.type])).toEqual([
      [1, 'trace_started'],
      [2, 'layer_started'],
      [3, 'layer_started'],
    ]);
    expect(detail!.nodes.map((n) => [n.node_id, n.capability, n.status, n.layer])).toEqual([
      ['n1', 'writing', 'running', 0],
    ]);
    expect(detail!.plan?.levels).toEqual([['n1']]);
  });

  it('stamps events with the time they happened, not the time they are written', async () => {
    const t = await store.createTrace({ task: 't' });
    let now = Date.parse('2026-01-01T00:00:01Z');
    const writer = new TraceWriter(store, t.id, { now: () => now });
    await writer.event(layer(0));
    now += 4000;
    await writer.event(layer(1));
    now += 4000;
    await writer.flush();
    const times = (await store.eventsAfter(t.id, 0)).map((e) => e.at.getTime());
    expect(times).toEqual([now - 8000, now - 4000]);
  });

  it('finishes with everything queued in the same transaction, trace_finished last', async () => {
    const t = await store.createTrace({ task: 't' });
    const s = counted();
    const writer = new TraceWriter(s, t.id, { flushDelayMs: 60_000 });
    await writer.event(layer(0));
    await writer.node('n1', { capability: 'writing', status: 'succeeded', output: 'o' } as never);
    const finished = await writer.finish(end);
    expect(finished).toBe(true);
    expect(s.batches).toHaveLength(1);
    const detail = await store.getTrace(t.id);
    expect(detail!.trace).toMatchObject({ status: 'ok', summary: 's', last_seq: 2 });
    expect(detail!.events.map((e) => e.type)).toEqual(['layer_started', 'trace_finished']);
    expect(detail!.nodes[0]).toMatchObject({ status: 'succeeded', output: 'o' });
  });

  it('does not end a trace the reaper already ended, but still writes the queued events', async () => {
    const t = await store.createTrace({ task: 't' });
    await store.finishTrace(t.id, { status: 'aborted' });
    const writer = new TraceWriter(store, t.id);
    await writer.event(layer(0));
    expect(await writer.finish(end)).toBe(false);
    const detail = await store.getTrace(t.id);
    expect(detail!.trace.status).toBe('aborted');
    expect(detail!.events.map((e) => e.type)).toEqual(['layer_started']);
  });

  it('pushes events to subscribers while the run goes on', async () => {
    const t = await store.createTrace({ task: 't' });
    const sub = collect(store, t.id, 2, { afterSeq: 0, timeoutMs: 2000 });
    await sub.ready;
    const writer = new TraceWriter(store, t.id, { flushDelayMs: 10 });
    await writer.event(layer(0));
    await writer.event(layer(1));
    expect((await sub.done).map((e) => e.seq)).toEqual([1, 2]);
    sub.close();
    await writer.finish(end);
  });

  it('keeps the first failure, writes nothing more and throws it on flush; finish then writes the end alone', async () => {
    const t = await store.createTrace({ task: 't' });
    const s = counted();
    const writer = new TraceWriter(s, t.id);
    await writer.event(layer(0));
    // Malformed: the whole batch is refused before anything is written.
    await writer.event({ type: 'layer_started', data: { layer: -1 } } as never);
    await expect(writer.flush()).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await writer.event(layer(2));
    await expect(writer.flush()).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(s.batches).toHaveLength(1);
    expect(await writer.finish(end)).toBe(true);
    expect((await store.eventsAfter(t.id, 0)).map((e) => e.type)).toEqual(['trace_finished']);
    const gone = new TraceWriter(store, 'cd'.repeat(16));
    await gone.event(layer(0));
    await expect(gone.flush()).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
