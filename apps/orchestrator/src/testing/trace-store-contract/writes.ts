import type { ManualClock } from '@agent-reach/sdk/testing';
import { beforeEach, expect, it } from 'vitest';
import type { TraceEventInput } from '../../traces/events.js';
import type { TraceStore } from '../../traces/trace-store.js';
import { type ContractContext, ev, expectThrowsCode } from './helpers.js';

/** Contract cases for creating traces, events, plans, nodes and finishing. */
export function writeCases(ctx: () => ContractContext): void {
  let store: TraceStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
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
    expect(t.started_at.getTime()).toBe(clock.wallNow());
    expect(t.last_event_at.getTime()).toBe(clock.wallNow());
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
    expect(detail!.trace.last_event_at.getTime()).toBe(clock.wallNow());
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

  it('appends a batch with consecutive seqs after earlier events, stamped as given', async () => {
    const t = await store.createTrace({ task: 't' });
    await store.appendEvent(t.id, ev('n0'));
    const at = new Date(clock.wallNow() + 5000);
    const r = await store.appendEvents(t.id, [
      { event: ev('n1') },
      { event: ev('n2'), at },
      { event: ev('n3') },
    ]);
    expect(r.ok && r.value.map((e) => e.seq)).toEqual([2, 3, 4]);
    const detail = await store.getTrace(t.id);
    expect(detail!.trace.last_seq).toBe(4);
    expect(detail!.trace.last_event_at.getTime()).toBe(at.getTime());
    expect(detail!.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    const missing = await store.appendEvents('cd'.repeat(16), [{ event: ev('n1') }]);
    expect(missing.ok ? null : missing.error.code).toBe('NOT_FOUND');
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
    const started = new Date(clock.wallNow());
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
    expect(done.ok && done.value.finished_at!.getTime()).toBe(clock.wallNow());
    const again = await store.finishTrace(t.id, { status: 'ok' });
    expect(again.ok ? null : again.error.code).toBe('CONFLICT');
    const missing = await store.finishTrace('cd'.repeat(16), { status: 'ok' });
    expect(missing.ok ? null : missing.error.code).toBe('NOT_FOUND');
  });

  it('returns null for a trace that does not exist', async () => {
    expect(await store.getTrace('ef'.repeat(16))).toBeNull();
  });
}
