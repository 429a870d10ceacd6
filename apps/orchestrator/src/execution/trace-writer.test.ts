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
