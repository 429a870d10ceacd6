import { ManualClock } from '@agent-reach/sdk/testing';
import { describe, expect, it } from 'vitest';
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
