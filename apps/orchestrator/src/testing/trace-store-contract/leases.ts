import { expect, it } from 'vitest';
import { type ContractContext, ev } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TTL = 300;

/** Run ownership: leases in the database's clock, takeover of lapsed ones, fenced writes, the reaper. */
export function leaseCases(ctx: () => ContractContext): void {
  it('keeps a leased run to its owner while renewed, and hands it to one claimer once it lapses', async () => {
    const { store } = ctx();
    const t = await store.createTrace({ task: 'leased' }, undefined, { owner: 'a', ttlMs: TTL });
    expect(t).toMatchObject({ owner: 'a', resumes: 0 });
    expect(await store.claimExpiredRuns('b', TTL, 10)).toEqual([]);
    expect(await store.renewLeases('a', [t.id], TTL)).toEqual([t.id]);
    expect(await store.renewLeases('b', [t.id], TTL)).toEqual([]);
    await sleep(TTL + 100);
    const [b, c] = await Promise.all([
      store.claimExpiredRuns('b', TTL, 10),
      store.claimExpiredRuns('c', TTL, 10),
    ]);
    expect([...b, ...c]).toEqual([{ id: t.id, previous_owner: 'a', resumes: 1 }]);
    expect(await store.renewLeases('a', [t.id], TTL)).toEqual([]);
  });

  it('refuses writes from an owner that lost the run, and takes the new owner’s', async () => {
    const { store } = ctx();
    const t = await store.createTrace({ task: 'fenced' }, undefined, { owner: 'a', ttlMs: TTL });
    expect((await store.writeBatch(t.id, { owner: 'a', events: [{ event: ev('n1') }] })).ok).toBe(true);
    await sleep(TTL + 100);
    expect(await store.claimExpiredRuns('b', TTL, 10)).toHaveLength(1);
    for (const batch of [
      { events: [{ event: ev('n2') }] },
      { nodes: [{ node_id: 'n1', capability: 'research', status: 'succeeded' as const }] },
      { finish: { trace: { status: 'ok' as const } } },
    ]) {
      const r = await store.writeBatch(t.id, { owner: 'a', ...batch });
      expect(r.ok ? null : [r.error.code, (r.error.data as { reason?: string }).reason]).toEqual([
        'CONFLICT',
        'not_owner',
      ]);
    }
    const done = await store.writeBatch(t.id, {
      owner: 'b',
      events: [{ event: ev('n3') }],
      finish: { trace: { status: 'ok' }, event: { type: 'trace_finished', data: { status: 'ok' } } },
    });
    expect(done.ok && done.value.finished).toBe(true);
    const detail = await store.getTrace(t.id);
    expect(detail!.events.map((e) => e.type)).toEqual(['node_started', 'node_started', 'trace_finished']);
    expect(detail!.nodes).toEqual([]);
  });

  it('hands runs over at once on release, and never renews a run its owner does not run', async () => {
    const { store } = ctx();
    const kept = await store.createTrace({ task: 'kept' }, undefined, { owner: 'a', ttlMs: 60_000 });
    const left = await store.createTrace({ task: 'left' }, undefined, { owner: 'a', ttlMs: 60_000 });
    expect(await store.releaseRuns('a', [left.id])).toEqual([left.id]);
    expect(await store.renewLeases('a', [kept.id, left.id], 60_000)).toEqual([kept.id]);
    expect(await store.claimExpiredRuns('b', 60_000, 10)).toEqual([
      { id: left.id, previous_owner: null, resumes: 1 },
    ]);
    expect(await store.releaseRuns('a')).toEqual([kept.id]);
  });

  it('reaps only runs nobody holds, leaving none of their nodes running or pending', async () => {
    const { store, clock } = ctx();
    const orphan = await store.createTrace({ task: 'orphan' }, undefined, { owner: 'a', ttlMs: TTL });
    const held = await store.createTrace({ task: 'held' }, undefined, { owner: 'b', ttlMs: 600_000 });
    for (const id of [orphan.id, held.id]) {
      await store.writeBatch(id, {
        nodes: [
          { node_id: 'n1', capability: 'research', status: 'succeeded', output: 'x' },
          { node_id: 'n2', capability: 'planning', status: 'running' },
          { node_id: 'n3', capability: 'synthesis', status: 'pending' },
        ],
      });
    }
    await sleep(TTL + 100);
    clock.advance(301_000);
    expect(await store.reapStale()).toEqual([orphan.id]);
    const detail = await store.getTrace(orphan.id);
    expect(detail!.trace).toMatchObject({ status: 'aborted', owner: null });
    expect(Object.fromEntries(detail!.nodes.map((n) => [n.node_id, n.status]))).toEqual({
      n1: 'succeeded',
      n2: 'interrupted',
      n3: 'skipped',
    });
    expect((await store.getTrace(held.id))!.trace.status).toBe('running');
  });
}
