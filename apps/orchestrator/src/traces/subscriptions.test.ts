import { describe, expect, it } from 'vitest';
import type { TraceEvent } from './events.js';
import { type EventNotifier, SubscriptionHub } from './subscriptions.js';

const tick = () => new Promise((r) => setTimeout(r, 5));

/** An in-memory log with a notifier, standing in for the database. */
function fakeLog() {
  const rows: TraceEvent[] = [];
  let onNotify: ((p: string) => void) | null = null;
  let reads = 0;
  let unlistened = false;
  const notifier: EventNotifier = {
    listen: async (_channel, cb) => {
      onNotify = cb;
      return async () => {
        unlistened = true;
      };
    },
  };
  const source = {
    currentSeq: async (id: string) => rows.filter((r) => r.trace_id === id).length,
    eventsAfter: async (id: string, after: number) => {
      reads += 1;
      return rows.filter((r) => r.trace_id === id && r.seq > after);
    },
  };
  const append = (trace_id: string, notify = true) => {
    const seq = rows.filter((r) => r.trace_id === trace_id).length + 1;
    rows.push({ trace_id, seq, at: new Date(), type: 'node_retry', data: { node_id: 'n1', attempt: seq } });
    if (notify) onNotify?.(`${trace_id}:${seq}`);
  };
  return { notifier, source, append, reads: () => reads, unlistened: () => unlistened };
}

describe('SubscriptionHub', () => {
  it('delivers each new event once, in order, and only for its trace', async () => {
    const log = fakeLog();
    const hub = new SubscriptionHub(log.notifier, 'ch', log.source);
    log.append('a');
    const got: string[] = [];
    await hub.subscribe('a', (e) => got.push(`${e.trace_id}:${e.seq}`));
    log.append('a');
    log.append('b');
    log.append('a');
    await tick();
    expect(got).toEqual(['a:2', 'a:3']);
  });

  it('replays from afterSeq and folds bursts of notifications into few reads', async () => {
    const log = fakeLog();
    const hub = new SubscriptionHub(log.notifier, 'ch', log.source);
    for (let i = 0; i < 3; i += 1) log.append('a');
    const got: number[] = [];
    await hub.subscribe('a', (e) => got.push(e.seq), 0);
    const before = log.reads();
    for (let i = 0; i < 20; i += 1) log.append('a');
    await tick();
    expect(got).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    expect(log.reads() - before).toBeLessThanOrEqual(3);
  });

  it('catches an event that committed while subscribing, without its notification', async () => {
    const log = fakeLog();
    const hub = new SubscriptionHub(log.notifier, 'ch', log.source);
    const got: number[] = [];
    await hub.subscribe('a', (e) => got.push(e.seq), 0);
    log.append('a', false);
    await hub.subscribe('a', () => {}, 0);
    await tick();
    // The first subscriber reads again on the next notification and gets both, in order.
    log.append('a');
    await tick();
    expect(got).toEqual([1, 2]);
  });

  it('keeps delivering to others when a listener throws, and stops after close', async () => {
    const log = fakeLog();
    const hub = new SubscriptionHub(log.notifier, 'ch', log.source);
    const good: number[] = [];
    await hub.subscribe('a', () => {
      throw new Error('bad listener');
    });
    const sub = await hub.subscribe('a', (e) => good.push(e.seq));
    log.append('a');
    await tick();
    sub.close();
    log.append('a');
    await tick();
    expect(good).toEqual([1]);
    await hub.close();
    expect(log.unlistened()).toBe(true);
  });
});
