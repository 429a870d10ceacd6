import { err, ok, ReachError } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { TraceWriter } from './trace-writer.js';

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
    const writer = new TraceWriter(store, 't');
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
    const writer = new TraceWriter(store, 't', () => t);
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
    const writer = new TraceWriter(store, 't');
    await writer.event({ type: 'trace_started', data: { task: 'x' } });
    await writer.event({ type: 'trace_started', data: { task: 'y' } });
    await expect(writer.flush()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(calls).toBe(1);
  });
});
