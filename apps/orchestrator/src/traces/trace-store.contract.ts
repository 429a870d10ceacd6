import { isReachError } from '@agent-reach/sdk/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TraceEvent, TraceEventInput } from './events.js';
import type { TraceStore, WallClock } from './trace-store.js';

/** A wall clock tests move by hand. */
export class ManualWallClock implements WallClock {
  constructor(public ms = Date.parse('2026-10-23T08:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const ev = (node_id: string, i = 0): TraceEventInput => ({
  type: 'node_started',
  data: { node_id, capability: 'research', layer: i },
});

/** Resolves with the first `n` events a subscription delivers, or rejects after `timeoutMs`. */
export function collect(
  store: TraceStore,
  traceId: string,
  n: number,
  options: { afterSeq?: number; timeoutMs?: number } = {},
): { ready: Promise<void>; done: Promise<TraceEvent[]>; close: () => void } {
  const got: TraceEvent[] = [];
  let close = () => {};
  let ready!: Promise<void>;
  const done = new Promise<TraceEvent[]>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`got ${got.length} of ${n} events`)),
      options.timeoutMs ?? 5000,
    );
    ready = store
      .subscribe(
        traceId,
        (e) => {
          got.push(e);
          if (got.length === n) {
            clearTimeout(timer);
            resolve(got);
          }
        },
        options,
      )
      .then((sub) => {
        close = () => sub.close();
      });
  });
  return { ready, done, close: () => close() };
}

async function expectThrowsCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isReachError(error) ? error.code : error).toBe(code);
}

/** How the contract reaches one driver. */
export interface TraceStoreHarness {
  /** Once before the suite: start the database, create a schema, … */
  setup(): Promise<void>;
  /** A store over empty tables, on this clock; closed after each test. */
  open(clock: ManualWallClock): Promise<TraceStore>;
  /** Once after the suite. */
  teardown(): Promise<void>;
}

/** The TraceStore contract, run against every driver (PGlite in unit tests, Postgres in `test/`). */
export function traceStoreContract(name: string, harness: TraceStoreHarness): void {
  describe(`TraceStore contract · ${name}`, () => {
    let clock: ManualWallClock;
    let store: TraceStore;
    beforeAll(() => harness.setup(), 120_000);
    afterAll(() => harness.teardown(), 60_000);
    beforeEach(async () => {
      clock = new ManualWallClock();
      store = await harness.open(clock);
    }, 60_000);
    afterEach(async () => {
      await store.close();
    });

    it('creates a running trace with a 32-hex id', async () => {
      const t = await store.createTrace({ task: '设计一个用户下线接口', meta: { provider: 'offline' } });
      expect(t.id).toMatch(/^[0-9a-f]{32}$/);
      expect(t).toMatchObject({
        status: 'running',
        task: '设计一个用户下线接口',
        last_seq: 0,
        meta: { provider: 'offline' },
      });
      expect(t.started_at.getTime()).toBe(clock.ms);
      expect(t.last_event_at.getTime()).toBe(clock.ms);
    });

    it('refuses a taken id, a malformed id and an empty task with codes', async () => {
      const id = 'ab'.repeat(16);
      await store.createTrace({ id, task: 't' });
      await expectThrowsCode(store.createTrace({ id, task: 't' }), 'CONFLICT');
      await expectThrowsCode(store.createTrace({ id: 'XYZ', task: 't' }), 'VALIDATION_FAILED');
      await expectThrowsCode(store.createTrace({ task: '   ' }), 'VALIDATION_FAILED');
    });

    it('numbers events 1, 2, 3 and moves last_event_at', async () => {
      const t = await store.createTrace({ task: 't' });
      clock.advance(1000);
      const a = await store.appendEvent(t.id, { type: 'trace_started', data: { task: 't' } });
      const b = await store.appendEvent(t.id, ev('n1'));
      expect(a.ok && a.value.seq).toBe(1);
      expect(b.ok && b.value).toMatchObject({
        seq: 2,
        type: 'node_started',
        data: { node_id: 'n1', layer: 0 },
      });
      const detail = await store.getTrace(t.id);
      expect(detail!.trace.last_event_at.getTime()).toBe(clock.ms);
      expect(detail!.trace.last_seq).toBe(2);
      expect(detail!.events.map((e) => [e.seq, e.type])).toEqual([
        [1, 'trace_started'],
        [2, 'node_started'],
      ]);
    });

    it('rejects malformed events and reports a missing trace as a value', async () => {
      const t = await store.createTrace({ task: 't' });
      const bad = { type: 'node_started', data: { capability: 'x' } } as unknown as TraceEventInput;
      await expectThrowsCode(store.appendEvent(t.id, bad), 'VALIDATION_FAILED');
      const unknown = { type: 'no_such_event', data: {} } as unknown as TraceEventInput;
      await expectThrowsCode(store.appendEvent(t.id, unknown), 'VALIDATION_FAILED');
      const missing = await store.appendEvent('cd'.repeat(16), ev('n1'));
      expect(missing.ok ? null : missing.error.code).toBe('NOT_FOUND');
    });

    it('gives concurrent appends unique consecutive seqs per trace', async () => {
      const a = await store.createTrace({ task: 'a' });
      const b = await store.createTrace({ task: 'b' });
      const results = await Promise.all([
        ...Array.from({ length: 40 }, (_, i) => store.appendEvent(a.id, ev(`a${i}`))),
        ...Array.from({ length: 15 }, (_, i) => store.appendEvent(b.id, ev(`b${i}`))),
      ]);
      const seqs = (id: string) =>
        results
          .filter((r) => r.ok && r.value.trace_id === id)
          .map((r) => (r.ok ? r.value.seq : 0))
          .sort((x, y) => x - y);
      expect(seqs(a.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(seqs(b.id)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
      expect((await store.eventsAfter(a.id, 0)).map((e) => e.seq)).toEqual(seqs(a.id));
    });

    it('returns events after a seq, in order', async () => {
      const t = await store.createTrace({ task: 't' });
      for (let i = 0; i < 5; i += 1) await store.appendEvent(t.id, ev(`n${i}`, i));
      expect((await store.eventsAfter(t.id, 3)).map((e) => e.seq)).toEqual([4, 5]);
      expect(await store.eventsAfter(t.id, 5)).toEqual([]);
    });

    it('saves and replaces the plan, keeping JSON shapes', async () => {
      const t = await store.createTrace({ task: 't' });
      const plan = { intent: 'i', nodes: [{ id: 'n1' }], final_node: 'n1', reasoning: '' };
      const first = await store.savePlan(t.id, {
        raw: 'garbage text',
        plan,
        warnings: ['w1'],
        degraded: true,
        levels: [['n1']],
        provider: null,
        attempts: [{ provider: 'a', status: 524 }],
      });
      expect(first.ok).toBe(true);
      await store.savePlan(t.id, {
        raw: { nodes: [] },
        plan,
        warnings: [],
        degraded: false,
        levels: [['n1']],
      });
      const detail = await store.getTrace(t.id);
      expect(detail!.plan).toMatchObject({
        raw: { nodes: [] },
        normalized: plan,
        warnings: [],
        degraded: false,
      });
      const missing = await store.savePlan('cd'.repeat(16), {
        raw: null,
        plan,
        warnings: [],
        degraded: false,
        levels: [],
      });
      expect(missing.ok ? null : missing.error.code).toBe('NOT_FOUND');
    });

    it('keeps a string as raw plan output', async () => {
      const t = await store.createTrace({ task: 't' });
      await store.savePlan(t.id, { raw: 'not json', plan: {}, warnings: [], degraded: true, levels: [] });
      expect((await store.getTrace(t.id))!.plan!.raw).toBe('not json');
    });

    it('inserts nodes and updates only the fields given', async () => {
      const t = await store.createTrace({ task: 't' });
      await store.upsertNode(t.id, {
        node_id: 'n1',
        capability: 'research',
        depends_on: [],
        layer: 0,
        purpose: 'p',
      });
      await store.upsertNode(t.id, { node_id: 'n2', capability: 'synthesis', depends_on: ['n1'], layer: 1 });
      const started = new Date(clock.ms);
      const up = await store.upsertNode(t.id, {
        node_id: 'n1',
        capability: 'research',
        status: 'succeeded',
        agent: 'researcher',
        attempts: 2,
        started_at: started,
        input_context: '上下文',
        output: '输出',
        output_chars: 2,
      });
      expect(up.ok && up.value).toMatchObject({
        purpose: 'p',
        layer: 0,
        status: 'succeeded',
        attempts: 2,
        output: '输出',
      });
      const detail = await store.getTrace(t.id);
      expect(detail!.nodes.map((n) => [n.node_id, n.status, n.depends_on])).toEqual([
        ['n1', 'succeeded', []],
        ['n2', 'pending', ['n1']],
      ]);
      expect(detail!.nodes[0]!.started_at!.getTime()).toBe(started.getTime());
      await expectThrowsCode(
        store.upsertNode(t.id, { node_id: 'n1', capability: 'x', status: 'bogus' as 'failed' }),
        'VALIDATION_FAILED',
      );
      const missing = await store.upsertNode('cd'.repeat(16), { node_id: 'n1', capability: 'research' });
      expect(missing.ok ? null : missing.error.code).toBe('NOT_FOUND');
    });

    it('finishes a running trace once', async () => {
      const t = await store.createTrace({ task: 't' });
      clock.advance(2500);
      const done = await store.finishTrace(t.id, {
        status: 'degraded',
        summary: '摘要',
        stats: { nodes: 6 },
      });
      expect(done.ok && done.value).toMatchObject({
        status: 'degraded',
        duration_ms: 2500,
        summary: '摘要',
        stats: { nodes: 6 },
      });
      expect(done.ok && done.value.finished_at!.getTime()).toBe(clock.ms);
      const again = await store.finishTrace(t.id, { status: 'ok' });
      expect(again.ok ? null : again.error.code).toBe('CONFLICT');
      const missing = await store.finishTrace('cd'.repeat(16), { status: 'ok' });
      expect(missing.ok ? null : missing.error.code).toBe('NOT_FOUND');
    });

    it('returns null for a trace that does not exist', async () => {
      expect(await store.getTrace('ef'.repeat(16))).toBeNull();
    });

    it('lists traces newest first with status, text and time filters', async () => {
      const ids: string[] = [];
      for (const task of ['派对策划', 'logout endpoint', '100% sure', 'party plan']) {
        ids.push((await store.createTrace({ task })).id);
        clock.advance(1000);
      }
      await store.finishTrace(ids[0]!, { status: 'ok', summary: 'a PARTY summary' });
      await store.finishTrace(ids[1]!, { status: 'failed' });
      const all = await store.listTraces();
      expect(all.items.map((t) => t.id)).toEqual([...ids].reverse());
      expect(all.next_cursor).toBeNull();
      expect((await store.listTraces({ status: 'running' })).items.map((t) => t.id)).toEqual([
        ids[3],
        ids[2],
      ]);
      expect((await store.listTraces({ status: ['ok', 'failed'] })).items).toHaveLength(2);
      expect((await store.listTraces({ q: 'party' })).items.map((t) => t.id)).toEqual([ids[3], ids[0]]);
      expect((await store.listTraces({ q: '%' })).items.map((t) => t.id)).toEqual([ids[2]]);
      const t0 = Date.parse('2026-10-23T08:00:00.000Z');
      const window = await store.listTraces({
        since: new Date(t0 + 1000).toISOString(),
        until: new Date(t0 + 3000),
      });
      expect(window.items.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    });

    it('pages with a cursor, ties on start time included', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 7; i += 1) {
        ids.add((await store.createTrace({ task: `t${i}` })).id);
        if (i % 3 === 2) clock.advance(1000);
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listTraces({ limit: 3, cursor });
        seen.push(...page.items.map((t) => t.id));
        cursor = page.next_cursor ?? undefined;
        pages += 1;
      } while (cursor !== undefined);
      expect(pages).toBe(3);
      expect(new Set(seen)).toEqual(ids);
      expect(seen).toHaveLength(7);
    });

    it('refuses a foreign cursor and a bad query with codes', async () => {
      await expectThrowsCode(store.listTraces({ cursor: 'bm9wZQ' }), 'BAD_REQUEST');
      await expectThrowsCode(store.listTraces({ limit: 0 }), 'VALIDATION_FAILED');
      await expectThrowsCode(store.listTraces({ status: 'sleeping' as 'ok' }), 'VALIDATION_FAILED');
    });

    it('deletes a trace with everything it recorded', async () => {
      const t = await store.createTrace({ task: 't' });
      const keep = await store.createTrace({ task: 'keep' });
      await store.appendEvent(t.id, ev('n1'));
      await store.appendEvent(keep.id, ev('n1'));
      await store.upsertNode(t.id, { node_id: 'n1', capability: 'research' });
      await store.savePlan(t.id, { raw: null, plan: {}, warnings: [], degraded: false, levels: [] });
      expect(await store.deleteTrace(t.id)).toBe(true);
      expect(await store.deleteTrace(t.id)).toBe(false);
      expect(await store.getTrace(t.id)).toBeNull();
      expect(await store.eventsAfter(t.id, 0)).toEqual([]);
      expect((await store.getTrace(keep.id))!.events).toHaveLength(1);
    });

    it('reaps running traces whose last event is older than the threshold', async () => {
      const stale = await store.createTrace({ task: 'stale' });
      const longButAlive = await store.createTrace({ task: 'alive' });
      const finished = await store.createTrace({ task: 'done' });
      await store.finishTrace(finished.id, { status: 'ok' });
      clock.advance(200_000);
      await store.appendEvent(longButAlive.id, ev('n1'));
      clock.advance(101_000);
      expect(await store.reapStale()).toEqual([stale.id]);
      const detail = await store.getTrace(stale.id);
      expect(detail!.trace).toMatchObject({ status: 'aborted', duration_ms: 301_000 });
      expect(detail!.events.map((e) => [e.type, e.data])).toEqual([
        ['trace_finished', { status: 'aborted', reason: 'stale' }],
      ]);
      expect((await store.getTrace(longButAlive.id))!.trace.status).toBe('running');
      expect((await store.getTrace(finished.id))!.trace.status).toBe('ok');
      expect(await store.reapStale()).toEqual([]);
      const late = await store.finishTrace(stale.id, { status: 'ok' });
      expect(late.ok ? null : late.error.code).toBe('CONFLICT');
    });

    it('pushes new events to a subscriber, in order, and only its trace', async () => {
      const t = await store.createTrace({ task: 't' });
      const other = await store.createTrace({ task: 'other' });
      await store.appendEvent(t.id, ev('before'));
      const sub = collect(store, t.id, 3);
      await sub.ready;
      await store.appendEvent(other.id, ev('elsewhere'));
      await Promise.all([store.appendEvent(t.id, ev('n1')), store.appendEvent(t.id, ev('n2'))]);
      await store.appendEvent(t.id, ev('n3'));
      const got = await sub.done;
      sub.close();
      expect(got.map((e) => e.seq)).toEqual([2, 3, 4]);
      expect(got.every((e) => e.trace_id === t.id)).toBe(true);
    });

    it('replays from afterSeq, then continues live without gaps or repeats', async () => {
      const t = await store.createTrace({ task: 't' });
      for (let i = 0; i < 3; i += 1) await store.appendEvent(t.id, ev(`n${i}`));
      const sub = collect(store, t.id, 4, { afterSeq: 1 });
      await sub.ready;
      await store.appendEvent(t.id, ev('n3'));
      await store.appendEvent(t.id, ev('n4'));
      expect((await sub.done).map((e) => e.seq)).toEqual([2, 3, 4, 5]);
      sub.close();
    });

    it('stops delivering after close', async () => {
      const t = await store.createTrace({ task: 't' });
      const got: number[] = [];
      const sub = await store.subscribe(t.id, (e) => got.push(e.seq));
      const watcher = collect(store, t.id, 2);
      await watcher.ready;
      await store.appendEvent(t.id, ev('n1'));
      await new Promise((r) => setTimeout(r, 50));
      sub.close();
      await store.appendEvent(t.id, ev('n2'));
      await watcher.done;
      watcher.close();
      expect(got).toEqual([1]);
    });
  });
}
