import type { ManualClock } from '@agent-reach/sdk/testing';
import { beforeEach, expect, it } from 'vitest';
import type { TraceStore } from '../../traces/trace-store.js';
import { type ContractContext, collect, ev, expectThrowsCode } from './helpers.js';

/** Contract cases for a run's batched writes: a trace with its first event, and `writeBatch`. */
export function batchCases(ctx: () => ContractContext): void {
  let store: TraceStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
  });

  it('creates a trace with its first event in one step', async () => {
    const t = await store.createTrace({ task: 't' }, { type: 'trace_started', data: { task: 't' } });
    expect(t).toMatchObject({ status: 'running', last_seq: 1 });
    const detail = await store.getTrace(t.id);
    expect(detail!.events.map((e) => [e.seq, e.type, e.at.getTime()])).toEqual([
      [1, 'trace_started', clock.wallNow()],
    ]);
    await expectThrowsCode(
      store.createTrace({ id: t.id, task: 't' }, { type: 'trace_started', data: { task: 't' } }),
      'CONFLICT',
    );
    expect((await store.getTrace(t.id))!.events).toHaveLength(1);
  });

  it('writes events, node changes, the plan and the end in one batch, trace_finished last', async () => {
    const t = await store.createTrace({ task: 't' }, { type: 'trace_started', data: { task: 't' } });
    const sub = collect(store, t.id, 3);
    await sub.ready;
    await store.upsertNode(t.id, { node_id: 'n2', capability: 'synthesis', purpose: 'kept' });
    clock.advance(1500);
    const r = await store.writeBatch(t.id, {
      events: [{ event: ev('n1') }, { event: ev('n2') }],
      nodes: [
        { node_id: 'n1', capability: 'research', status: 'pending', layer: 0 },
        { node_id: 'n2', capability: 'synthesis', status: 'running', layer: 1 },
        { node_id: 'n1', capability: 'research', status: 'succeeded', output: 'o', agent: undefined },
      ],
      plan: { raw: null, plan: { nodes: [] }, warnings: [], degraded: false, levels: [['n1'], ['n2']] },
      finish: {
        trace: { status: 'ok', summary: 's' },
        event: { type: 'trace_finished', data: { status: 'ok' } },
      },
    });
    expect(r.ok && r.value.finished).toBe(true);
    expect(r.ok && r.value.events.map((e) => e.seq)).toEqual([2, 3, 4]);
    const detail = await store.getTrace(t.id);
    expect(detail!.trace).toMatchObject({ status: 'ok', summary: 's', last_seq: 4, duration_ms: 1500 });
    expect(detail!.events.map((e) => e.type)).toEqual([
      'trace_started',
      'node_started',
      'node_started',
      'trace_finished',
    ]);
    expect(detail!.nodes.map((n) => [n.node_id, n.status, n.layer, n.output, n.purpose])).toEqual([
      ['n1', 'succeeded', 0, 'o', null],
      ['n2', 'running', 1, null, 'kept'],
    ]);
    expect(detail!.plan?.levels).toEqual([['n1'], ['n2']]);
    // One notification for the batch still brings every event, in order.
    expect((await sub.done).map((e) => e.seq)).toEqual([2, 3, 4]);
    sub.close();
  });

  it('writes the events but not the end of a trace that already ended', async () => {
    const t = await store.createTrace({ task: 't' });
    await store.finishTrace(t.id, { status: 'aborted' });
    const r = await store.writeBatch(t.id, {
      events: [{ event: ev('n1') }],
      finish: { trace: { status: 'ok' }, event: { type: 'trace_finished', data: { status: 'ok' } } },
    });
    expect(r.ok && r.value.finished).toBe(false);
    const detail = await store.getTrace(t.id);
    expect(detail!.trace.status).toBe('aborted');
    expect(detail!.events.map((e) => e.type)).toEqual(['node_started']);
  });

  it('refuses a malformed batch whole and reports a missing trace as a value', async () => {
    const t = await store.createTrace({ task: 't' });
    const bad = { node_id: 'n1', capability: 'x', status: 'bogus' as 'failed' };
    await expectThrowsCode(
      store.writeBatch(t.id, { events: [{ event: ev('n1') }], nodes: [bad] }),
      'VALIDATION_FAILED',
    );
    expect((await store.getTrace(t.id))!.events).toEqual([]);
    const missing = await store.writeBatch('cd'.repeat(16), { nodes: [{ node_id: 'n1', capability: 'x' }] });
    expect(missing.ok ? null : missing.error.code).toBe('NOT_FOUND');
  });
}
