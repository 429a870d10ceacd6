import type { DnsResponse } from '@agent-reach/sdk/dns';
import { err, ok, ReachError } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { DnsAnswerCache } from './dns-answer-cache.js';

const answer = (ttl: number, extraTtl = ttl): DnsResponse => ({
  rcode: 'NOERROR',
  answers: [{ name: 'a', type: 64, ttl, data: null }],
  additionals: [{ name: 'b', type: 1, ttl: extraTtl, data: '127.0.0.1' }],
  viaTcp: false,
});

describe('DnsAnswerCache', () => {
  it('keeps an answer for its smallest TTL, capped', () => {
    let now = 0;
    const cache = new DnsAnswerCache({ now: () => now } as never, 5000);
    cache.put('short', ok(answer(30, 2)));
    cache.put('long', ok(answer(30)));
    now = 1999;
    expect(cache.get('short')).toBeDefined();
    now = 2000;
    expect(cache.get('short')).toBeUndefined();
    now = 4999;
    expect(cache.get('long')).toBeDefined();
    now = 5000;
    expect(cache.get('long')).toBeUndefined();
  });

  it('never keeps failures, empty answers, NXDOMAIN or TTL 0', () => {
    const cache = new DnsAnswerCache({ now: () => 0 } as never);
    cache.put('fail', err(new ReachError('UNAVAILABLE', 'silent')));
    cache.put('empty', ok({ ...answer(30), answers: [] }));
    cache.put('nx', ok({ ...answer(30), rcode: 'NXDOMAIN' }));
    cache.put('zero', ok(answer(0)));
    for (const k of ['fail', 'empty', 'nx', 'zero']) expect(cache.get(k)).toBeUndefined();
  });
});
