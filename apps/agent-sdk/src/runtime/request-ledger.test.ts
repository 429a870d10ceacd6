import { describe, expect, it } from 'vitest';
import { ManualClock } from '../testing/manual-clock.js';
import { RequestLedger } from './request-ledger.js';

describe('RequestLedger', () => {
  it('keeps a running request forever and a finished one for the TTL', () => {
    const clock = new ManualClock();
    const ledger = new RequestLedger<string>({ maxEntries: 10, ttlMs: 1000 }, clock);
    ledger.add('a', 'first');
    clock.advance(50_000);
    expect(ledger.get('a')).toBe('first');
    ledger.finish('a', 'first');
    clock.advance(999);
    expect(ledger.get('a')).toBe('first');
    clock.advance(1);
    expect(ledger.get('a')).toBeUndefined();
    expect(ledger.size).toBe(0);
  });

  it('evicts the least recently used id beyond maxEntries', () => {
    const ledger = new RequestLedger<number>({ maxEntries: 2, ttlMs: 1000 }, new ManualClock());
    ledger.add('a', 1);
    ledger.add('b', 2);
    expect(ledger.get('a')).toBe(1);
    ledger.add('c', 3);
    expect(ledger.get('b')).toBeUndefined();
    expect(ledger.get('a')).toBe(1);
    expect(ledger.get('c')).toBe(3);
  });

  it('forgets and finishes only the value it still holds', () => {
    const ledger = new RequestLedger<string>({ maxEntries: 5, ttlMs: 10 }, new ManualClock());
    ledger.add('a', 'old');
    ledger.add('a', 'new');
    ledger.forget('a', 'old');
    expect(ledger.get('a')).toBe('new');
    ledger.forget('a', 'new');
    expect(ledger.get('a')).toBeUndefined();
  });
});
