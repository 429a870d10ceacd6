import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, ListTracesQuery } from './list-query.js';

describe('list query and cursor', () => {
  it('round-trips a cursor', () => {
    const cursor = { started_at: new Date('2026-10-23T08:00:00.123Z'), id: 'ab'.repeat(16) };
    expect(decodeCursor(encodeCursor(cursor))).toEqual({ ok: true, value: cursor });
  });

  it.each([
    '',
    'bm9wZQ',
    Buffer.from('["x","y"]').toString('base64url'),
    Buffer.from('[1,2]').toString('base64url'),
  ])('refuses %j with BAD_REQUEST', (text) => {
    const out = decodeCursor(text);
    expect(out.ok ? null : out.error.code).toBe('BAD_REQUEST');
  });

  it('parses query strings: limit as text, ISO times, default limit', () => {
    const q = ListTracesQuery.parse({ limit: '20', since: '2026-10-23T08:00:00Z' });
    expect(q.limit).toBe(20);
    expect(q.since).toEqual(new Date('2026-10-23T08:00:00Z'));
    expect(ListTracesQuery.parse({}).limit).toBe(50);
    expect(ListTracesQuery.safeParse({ limit: 500 }).success).toBe(false);
    expect(ListTracesQuery.safeParse({ since: 'yesterday' }).success).toBe(false);
    expect(ListTracesQuery.safeParse({ bogus: 1 }).success).toBe(false);
  });
});
