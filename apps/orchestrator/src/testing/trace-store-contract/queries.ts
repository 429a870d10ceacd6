import type { ManualClock } from '@agent-reach/sdk/testing';
import { beforeEach, expect, it } from 'vitest';
import type { TraceStore } from '../../traces/trace-store.js';
import { type ContractContext, ev, expectThrowsCode } from './helpers.js';

/** Contract cases for listing, deleting and reaping traces. */
export function queryCases(ctx: () => ContractContext): void {
  let store: TraceStore;
  let clock: ManualClock;
  beforeEach(() => {
    ({ store, clock } = ctx());
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
    expect((await store.listTraces({ status: 'running' })).items.map((t) => t.id)).toEqual([ids[3], ids[2]]);
    expect((await store.listTraces({ status: ['ok', 'failed'] })).items).toHaveLength(2);
    expect((await store.listTraces({ q: 'party' })).items.map((t) => t.id)).toEqual([ids[3], ids[0]]);
    expect((await store.listTraces({ q: '%' })).items.map((t) => t.id)).toEqual([ids[2]]);
    // The search box takes a trace id, whole or its first digits, in either case.
    expect((await store.listTraces({ q: ids[1]! })).items.map((t) => t.id)).toEqual([ids[1]]);
    expect((await store.listTraces({ q: ids[1]!.slice(0, 8).toUpperCase() })).items.map((t) => t.id)).toEqual(
      [ids[1]],
    );
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
}
