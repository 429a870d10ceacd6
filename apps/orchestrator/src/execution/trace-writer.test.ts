import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import type { NodeUpsert, TraceEventInput } from '../traces/index.js';
import { TraceWriter, type TraceWriterStore } from './trace-writer.js';

type OneAtATime = {
  appendEvent: (id: string, e: TraceEventInput, options?: { at?: Date }) => Promise<Result<unknown>>;
  upsertNode: (id: string, n: NodeUpsert) => Promise<Result<unknown>>;
  savePlan: () => Promise<Result<unknown>>;
};

/** The batch calls a writer makes, played one write at a time into a fake store. */
function batched(store: OneAtATime): TraceWriterStore {
  return {
    appendEvents: async (id, batch) => {
      for (const b of batch) {
        const r = await store.appendEvent(id, b.event, b.at === undefined ? {} : { at: b.at });
        if (!r.ok) return r;
      }
      return ok([]);
    },
    upsertNodes: async (id, inputs) => {
      for (const n of inputs) await store.upsertNode(id, n);
      return ok([]);
    },
    savePlan: async () => ok({} as never),
  };
}

describe('TraceWriter', () => {
  it('returns at once and writes in order', async () => {
    const written: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const store = {
      appendEvent: async (_id: string, e: { type: string }) => {
        if (e.type === 'trace_started') await slow;
        written.push(e.type);
        return ok({} as never);
      },
      upsertNode: async (_id: string, n: { node_id: string; capability: string }) => {
        written.push(`node ${n.node_id} ${n.capability}`);
        return ok({} as never);
      },
      savePlan: async () => ok({} as never),
    };
    const writer = new TraceWriter(batched(store), 't');
    await writer.event({ type: 'trace_started', data: { task: 'x' } });
    await writer.node('n1', { capability: 'writing', status: 'pending' } as never);
    await writer.node('n1', { status: 'running' });
    expect(written).toEqual([]);
    release();
    await writer.flush();
    expect(written).toEqual(['trace_started', 'node n1 writing', 'node n1 writing']);
  });

  it('stamps events with the time they happened, not the time they are written', async () => {
    const stamps: number[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const store = {
      appendEvent: async (_id: string, e: { type: string }, options?: { at?: Date }) => {
        if (e.type === 'trace_started') await slow;
        stamps.push(options!.at!.getTime());
        return ok({} as never);
      },
      upsertNode: async () => ok({} as never),
      savePlan: async () => ok({} as never),
    };
    let t = 1000;
    const writer = new TraceWriter(batched(store), 't', () => t);
    await writer.event({ type: 'trace_started', data: { task: 'x' } });
    t = 5000;
    await writer.event({ type: 'layer_started', data: { layer: 0, nodes: [], mode: 'serial' } });
    t = 9000;
    release();
    await writer.flush();
    expect(stamps).toEqual([1000, 5000]);
  });

  it('keeps the first failure, skips later writes and throws it on flush', async () => {
    let calls = 0;
    const store = {
      appendEvent: async () => {
        calls++;
        return err(new ReachError('NOT_FOUND', 'gone'));
      },
      upsertNode: async () => ok({} as never),
      savePlan: async () => ok({} as never),
    };
    const writer = new TraceWriter(batched(store), 't');
    await writer.event({ type: 'trace_started', data: { task: 'x' } });
    await writer.event({ type: 'trace_started', data: { task: 'y' } });
    await expect(writer.flush()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(calls).toBe(1);
  });
});
