import { beforeEach, expect, it, vi } from 'vitest';
import type { TraceStore } from '../../traces/trace-store.js';
import { type ContractContext, collect, ev } from './helpers.js';

/** Contract cases for pushed events. */
export function subscribeCases(ctx: () => ContractContext): void {
  let store: TraceStore;
  beforeEach(() => {
    ({ store } = ctx());
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
    // Wait for the delivery itself, not a fixed time (a busy machine can take longer than 50 ms).
    await vi.waitFor(() => expect(got).toEqual([1]), { timeout: 5000 });
    sub.close();
    await store.appendEvent(t.id, ev('n2'));
    await watcher.done;
    watcher.close();
    expect(got).toEqual([1]);
  });
}
