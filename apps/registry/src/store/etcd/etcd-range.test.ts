import type { KVClient } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { nextPageSize, rangeAll } from './etcd-range.js';

describe('nextPageSize', () => {
  it('starts with 500 keys, before any size is known', () => {
    expect(nextPageSize(0, 0)).toBe(500);
  });

  it('aims at 1 MiB per page from the average key-value size read so far', () => {
    // 200-byte identities: 5,242 per page, ten times fewer pages than 500 at a time.
    expect(nextPageSize(500 * 200, 500)).toBe(5242);
    // 700-byte instance records.
    expect(nextPageSize(500 * 700, 500)).toBe(1497);
  });

  it('stays between 500 and 10,000 keys', () => {
    expect(nextPageSize(500 * 10, 500)).toBe(10_000);
    expect(nextPageSize(500 * 100_000, 500)).toBe(500);
  });
});

/**
 * A stand-in for etcd's range call over sorted keys, as etcd 3.4 serves it: the page is the first
 * `limit` keys in [key, range_end), and `walked` counts every key in [key, range_end), which etcd's
 * index visits on each request whatever the limit.
 */
function fakeEtcd(keys: string[], valueBytes: number) {
  const sorted = [...keys].sort();
  const requests: { key: string; end: string }[] = [];
  let walked = 0;
  const kv = {
    range: async (req: { key: Buffer; range_end: Buffer; limit: number }) => {
      const key = req.key.toString('latin1');
      const end = req.range_end.toString('latin1');
      requests.push({ key, end });
      const inRange = sorted.filter((k) => k >= key && k < end);
      walked += inRange.length;
      const page = inRange.slice(0, req.limit);
      return {
        header: { revision: '7' },
        kvs: page.map((k) => ({ key: Buffer.from(k), value: Buffer.alloc(valueBytes, 97), lease: '0' })),
        more: inRange.length > page.length,
      };
    },
  };
  return {
    kv: kv as unknown as KVClient,
    requests,
    walked: () => walked,
    reset: () => {
      requests.length = 0;
      walked = 0;
    },
  };
}

const ids = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `/ns/p/id-${String(from + i).padStart(6, '0')}`);

describe('rangeAll with the cuts of the previous listing', () => {
  const prefix = Buffer.from('/ns/p/');

  it('reads each stretch between two cuts on its own, so the index is walked about once', async () => {
    const etcd = fakeEtcd([...ids(0, 20_000), '/ns/o', '/ns/q'], 1000);
    const first = await rangeAll(etcd.kv, prefix, 3);
    expect(first.kvs).toHaveLength(20_000);
    expect(first.kvs[0]!.key).toBe('/p/id-000000');
    // Unbounded pages each walk to the end of the prefix.
    expect(etcd.walked()).toBeGreaterThan(5 * 20_000);
    expect(first.cuts.length).toBeGreaterThan(10);
    expect(first.cuts[0]!.toString()).toMatch(/^\/ns\/p\/id-/);

    etcd.reset();
    const second = await rangeAll(etcd.kv, prefix, 3, first.cuts);
    expect(second.kvs.map((kv) => kv.key)).toEqual(first.kvs.map((kv) => kv.key));
    expect(etcd.walked()).toBeLessThan(1.1 * 20_000);
    // One request per stretch, and one more in the first (500 keys, before any size is known).
    expect(etcd.requests.length).toBeLessThanOrEqual(first.cuts.length + 2);
    expect(etcd.requests.at(-1)!.end).toBe('/ns/p0');
  });

  it('gives the same keys as an unbounded listing when keys came and went since the cuts were made', async () => {
    const before = await rangeAll(fakeEtcd(ids(0, 12_000), 1000).kv, prefix, 3);
    // Half the keys gone, new ones before, between and after the old ones.
    const now = [
      ...ids(0, 12_000).filter((_, i) => i % 2 === 0),
      ...ids(20_000, 26_000),
      '/ns/p/',
      '/ns/p/a',
    ];
    const etcd = fakeEtcd(now, 1000);
    const bounded = await rangeAll(etcd.kv, prefix, 3, before.cuts);
    const unbounded = await rangeAll(fakeEtcd(now, 1000).kv, prefix, 3);
    expect(bounded.kvs.map((kv) => kv.key)).toEqual(unbounded.kvs.map((kv) => kv.key));
    expect(bounded.kvs).toHaveLength(now.length);
    // Every request of the listing asked at the revision of the first one.
    expect(bounded.revision).toBe('7');
  });

  it('ignores cuts outside the prefix', async () => {
    const etcd = fakeEtcd(ids(0, 100), 10);
    const listed = await rangeAll(etcd.kv, prefix, 3, [Buffer.from('/ns/a'), Buffer.from('/ns/z')]);
    expect(listed.kvs).toHaveLength(100);
    expect(etcd.requests).toEqual([{ key: '/ns/p/', end: '/ns/p0' }]);
    expect(listed.cuts).toEqual([]);
  });
});
