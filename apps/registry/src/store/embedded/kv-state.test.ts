import { ManualClock } from '@agent-reach/sdk/testing';
import { describe, expect, it } from 'vitest';
import { HeldValue } from './held-value.js';
import { snapshotLines } from './journal-records.js';
import { KvState } from './kv-state.js';
import { LeaseTable } from './lease-table.js';

const written = (kv: KvState): number =>
  [...snapshotLines({ nextLease: 1, leases: [], kv: kv.entries() })].reduce((n, line) => n + line.length, 0);

describe('KvState.bytes', () => {
  it('follows the size of the keys in a snapshot through puts, overwrites, deletes and dropped leases', () => {
    const leases = new LeaseTable(new ManualClock(), () => undefined);
    const kv = new KvState(leases);
    leases.grant('7', 1_000);
    for (let i = 0; i < 200; i++)
      kv.apply([{ key: `/skydns/x/${i}`, value: `{"host":"h${i}","ttl":15}`, lease: '7' }], []);
    for (let i = 0; i < 50; i++) kv.apply([{ key: `/d/${i}`, value: 'durable' }], []);
    const full = written(kv);
    expect(kv.bytes).toBeGreaterThan(0.8 * full);
    expect(kv.bytes).toBeLessThanOrEqual(full);

    kv.apply([{ key: '/d/1', value: 'a much longer value than before' }], ['/d/2']);
    expect(Math.abs(kv.bytes - written(kv))).toBeLessThan(0.2 * written(kv));

    kv.dropLease('7');
    kv.apply(
      [],
      Array.from({ length: 50 }, (_, i) => `/d/${i}`),
    );
    expect(kv.size).toBe(0);
    expect(kv.bytes).toBe(0);
    leases.close();
  });
});

describe('KvState.list', () => {
  it('finds every key under any prefix, however many slashes either has, sorted', () => {
    const leases = new LeaseTable(new ManualClock(), () => undefined);
    const kv = new KvState(leases);
    const keys = [
      '/reach/instances/a-1',
      '/reach/instances/a-2',
      '/reach/instances-x/b',
      '/reach/declarations/a/000000000000001-1',
      '/reach/declarations/ab/000000000000002-1',
      '/skydns/internal/reach/a-1',
      '/skydns/internal/reach/_agents/_a2a/_op/a-1',
      '/reach/top',
      '/reach',
      'bare',
      'x/y/z/w',
      '/',
    ];
    kv.apply(
      keys.map((key) => ({ key, value: key })),
      [],
    );
    kv.apply([], ['/reach/instances/a-2']);
    const live = keys.filter((key) => key !== '/reach/instances/a-2');
    const prefixes = [
      '',
      '/',
      '/r',
      '/reach',
      '/reach/',
      '/reach/inst',
      '/reach/instances/',
      '/reach/instances/a',
      '/reach/declarations/a/',
      '/reach/declarations/a',
      '/skydns/',
      '/skydns/internal/reach/_agents/',
      'b',
      'x/y/',
      'x/y/z/',
      '/none/at/all/',
    ];
    for (const prefix of prefixes) {
      expect(
        kv.list(prefix).map((kv) => kv.key),
        prefix,
      ).toEqual(live.filter((key) => key.startsWith(prefix)).sort());
      expect(kv.listKeys(prefix), prefix).toEqual(live.filter((key) => key.startsWith(prefix)).sort());
    }
    expect(kv.size).toBe(live.length);
    expect(kv.get('/reach/instances/a-1')).toBe('/reach/instances/a-1');
    expect(kv.get('/reach/instances/a-2')).toBeNull();
    expect(
      kv
        .entries()
        .map(([key]) => key)
        .sort(),
    ).toEqual([...live].sort());
  });
});

describe('KvState with a put that names its source', () => {
  it('keeps a value (lease-bound or not) as its source object and reads it back as the same text', () => {
    const leases = new LeaseTable(new ManualClock(), () => undefined);
    const kv = new KvState(leases);
    leases.grant('7', 1_000);
    const record = { id: 'a', declaration: { capabilities: { x: {} } }, port: 1 };
    const value = JSON.stringify(record);
    const events = kv.apply(
      [
        { key: '/reach/instances/a', value, lease: '7', source: record },
        { key: '/reach/durable', value, source: record },
      ],
      [],
    );
    expect(events).toEqual([
      { type: 'put', key: '/reach/instances/a', value },
      { type: 'put', key: '/reach/durable', value },
    ]);
    expect(kv.get('/reach/instances/a')).toBe(value);
    expect(kv.list('/reach/instances/')).toEqual([{ key: '/reach/instances/a', value, lease: '7' }]);
    expect([...snapshotLines({ nextLease: 8, leases: [], kv: kv.entries() })].join('')).toContain(
      JSON.stringify(['/reach/instances/a', value, '7']),
    );
    // Counted as its text, and gone whole with its lease.
    const textOnly = new KvState(new LeaseTable(new ManualClock(), () => undefined));
    textOnly.apply([{ key: '/reach/durable', value }], []);
    expect(kv.bytes - textOnly.bytes).toBe('/reach/instances/a'.length + value.length + 1 + 9);
    const held = (key: string) => kv.entries().find(([k]) => k === key)![1];
    expect(held('/reach/durable')).toBeInstanceOf(HeldValue);
    expect(kv.list('/reach/durable')).toEqual([{ key: '/reach/durable', value }]);
    expect(kv.listKeys('/reach/')).toEqual(['/reach/durable', '/reach/instances/a']);
    // A value read back from before a restart is kept as its source only while it is that text.
    kv.apply([{ key: '/reach/loaded', value }], []);
    kv.keepAsSource('/reach/loaded', `${value} `, record);
    expect(held('/reach/loaded')).toBe(value);
    kv.keepAsSource('/reach/loaded', value, record);
    expect((held('/reach/loaded') as HeldValue).source).toBe(record);
    expect(kv.get('/reach/loaded')).toBe(value);
    kv.apply([], ['/reach/loaded']);
    expect(kv.get('/reach/loaded')).toBeNull();
    kv.keepAsSource('/reach/durable', value, record);
    leases.grant('8', 1_000);
    kv.apply([{ key: '/reach/instances/b', value, lease: '8' }], []);
    kv.keepAsSource('/reach/instances/b', `${value} `, record);
    expect(leases.delete('8')!.bound[1]).toBe(value);
    expect(kv.get('/reach/durable')).toBe(value);
    const lease = leases.delete('7')!;
    expect(lease.bound[1]).toBeInstanceOf(HeldValue);
    expect((lease.bound[1] as HeldValue).source).toBe(record);
    leases.close();
  });
});
