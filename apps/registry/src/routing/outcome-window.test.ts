import { Outcome } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRIOR, OutcomeBook, OutcomeWindow } from './outcome-window.js';

const outcome = (input: Partial<Outcome> & { instance_id: string; request_id: string }) =>
  Outcome.parse({ ok: true, latency_ms: 10, ...input });

describe('OutcomeWindow', () => {
  it('keeps only the last 100 outcomes', () => {
    const window = new OutcomeWindow();
    for (let i = 0; i < 100; i += 1) window.record(false, 5);
    expect(window.successes).toBe(0);
    for (let i = 0; i < 100; i += 1) window.record(true, 5);
    expect(window.count).toBe(100);
    expect(window.successes).toBe(100);
    window.record(false, 5);
    expect(window.failures).toBe(1);
    expect(window.count).toBe(100);
  });

  it('starts new instances at the prior and moves with evidence', () => {
    const window = new OutcomeWindow();
    expect(window.successRate()).toBeCloseTo(0.9);
    window.record(false, 1);
    expect(window.successRate()).toBeCloseTo(9 / 11);
    for (let i = 0; i < 10; i += 1) window.record(false, 1);
    expect(window.successRate()).toBeCloseTo(DEFAULT_PRIOR.successes / 21);
  });

  it('reports latency percentiles over successful outcomes only', () => {
    const window = new OutcomeWindow(10);
    for (const ms of [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]) window.record(true, ms);
    window.record(false, 30_000);
    expect(window.latencyStats()).toEqual({ p50: 60, p95: 100, mean: 60 });
    expect(new OutcomeWindow().latencyStats()).toBeNull();
  });
});

describe('OutcomeBook', () => {
  it('counts an overload answer (429) as a failure, and a cancelled first_win loser as neither', () => {
    const book = new OutcomeBook();
    const summary = book.record([
      outcome({ instance_id: 'a-1', request_id: 'r1', ok: false, failure: 'overloaded' }),
      outcome({ instance_id: 'a-1', request_id: 'r2', ok: false, failure: 'cancelled' }),
      outcome({ instance_id: 'a-1', request_id: 'r3' }),
    ]);
    expect(summary.accepted).toBe(2);
    expect(summary.ignored).toBe(1);
    expect([...summary.failed]).toEqual(['a-1']);
    expect(summary.fresh).toHaveLength(3);
    expect(book.window('a-1')!.failures).toBe(1);
    expect(book.window('a-1')!.successes).toBe(1);
  });

  it('counts a re-sent outcome once and ignores unknown instances', () => {
    const book = new OutcomeBook();
    const one = outcome({ instance_id: 'a-1', request_id: 'r1', ok: false, failure: 'connect' });
    book.record([one]);
    const again = book.record(
      [one, outcome({ instance_id: 'gone-1', request_id: 'r9' })],
      (id) => id === 'a-1',
    );
    expect(again).toMatchObject({ accepted: 0, ignored: 2 });
    expect(book.window('a-1')!.count).toBe(1);
    expect(book.window('gone-1')).toBeUndefined();
    book.forget('a-1');
    expect(book.successRate('a-1')).toBeCloseTo(0.9);
  });
});

describe('OutcomeBook per caller', () => {
  const fail = (id: string, i: number) =>
    outcome({ instance_id: id, request_id: `r${i}`, ok: false, failure: 'http_5xx' });

  it('caps one named caller’s share of the evidence, not the anonymous caller’s', () => {
    const book = new OutcomeBook({ callerShare: 0.5 });
    book.record(
      Array.from({ length: 1000 }, (_, i) => fail('a-1', i)),
      () => true,
      'mallory',
    );
    expect(book.window('a-1')!.count).toBe(100);
    expect(book.successRate('a-1')).toBeCloseTo(9 / 20);
    book.record(
      Array.from({ length: 100 }, (_, i) => fail('b-1', i)),
      () => true,
      null,
    );
    expect(book.successRate('b-1')).toBeCloseTo(9 / 110);
  });

  it('keeps a window per (instance, caller), and counts a re-sent outcome once per caller', () => {
    const book = new OutcomeBook({ callerShare: 0.5 });
    const ok = outcome({ instance_id: 'a-1', request_id: 'same' });
    expect(book.record([ok], () => true, 'alice').accepted).toBe(1);
    expect(book.record([ok], () => true, 'alice').accepted).toBe(0);
    expect(book.record([ok], () => true, 'bob').accepted).toBe(1);
    expect(book.window('a-1')!.count).toBe(2);
    // Honest successes from several callers keep the rate up against one caller's failures.
    for (const caller of ['alice', 'bob', 'carol']) {
      book.record(
        Array.from({ length: 100 }, (_, i) => outcome({ instance_id: 'a-1', request_id: `${caller}${i}` })),
        () => true,
        caller,
      );
    }
    book.record(
      Array.from({ length: 100 }, (_, i) => fail('a-1', i)),
      () => true,
      'mallory',
    );
    expect(book.successRate('a-1')).toBeGreaterThan(0.7);
  });
});
