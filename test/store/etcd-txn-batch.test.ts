import { openEtcdStore } from '@agent-reach/registry';
import { describe, expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';

const cluster = useEtcd();

const revision = async () => Number((await cluster.raw.leaseClient.leaseLeases()).header.revision);
const randomPrefix = () => `/batch-${Math.random().toString(36).slice(2, 10)}`;

describe('EtcdStore commits that wait together share one transaction', () => {
  it('applies 60 concurrent registrations whole in fewer raft writes than commits', async () => {
    const store = await openEtcdStore({ endpoints: [cluster.etcd.endpoint], prefix: randomPrefix() });
    try {
      const leases = await Promise.all(Array.from({ length: 60 }, () => store.grantLease(30_000)));
      const before = await revision();
      const results = await Promise.all(
        leases.map((lease, i) =>
          store.commit({
            puts: [
              { key: `/reach/instances/a-${i}`, value: `{"n":${i}}`, lease },
              { key: `/skydns/x/_tcp/_op/a-${i}`, value: '{}', lease },
              { key: `/skydns/x/a-${i}`, value: '{}', lease },
            ],
          }),
        ),
      );
      expect(results.every((result) => result.ok)).toBe(true);
      // Every put of one transaction shares its revision: fewer revisions than commits means batches.
      const written = (await revision()) - before;
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThan(60);
      expect(await store.list('/reach/instances/')).toHaveLength(60);
      expect(await store.list('/skydns/')).toHaveLength(120);
      // Each registration still goes with its own lease.
      await store.revokeLease(leases[7]!);
      expect(await store.get('/reach/instances/a-7')).toBeNull();
      expect(await store.get('/skydns/x/a-7')).toBeNull();
      expect(await store.list('/reach/instances/')).toHaveLength(59);
    } finally {
      await store.close();
    }
  });

  it('fails only the commit whose lease is gone, and applies commits to one key in order', async () => {
    const store = await openEtcdStore({ endpoints: [cluster.etcd.endpoint], prefix: randomPrefix() });
    try {
      const leases = await Promise.all(Array.from({ length: 20 }, () => store.grantLease(30_000)));
      await store.revokeLease(leases[3]!);
      const results = await Promise.all([
        ...leases.map((lease, i) =>
          store.commit({
            puts: [
              { key: `/reach/instances/b-${i}`, value: 'v', lease },
              { key: `/skydns/y/b-${i}`, value: '{}', lease },
            ],
          }),
        ),
        store.commit({ puts: [{ key: '/reach/shared', value: 'first' }] }),
        store.commit({ puts: [{ key: '/reach/shared', value: 'second' }] }),
      ]);
      expect(results.map((result) => result.ok)).toEqual([...leases.map((_, i) => i !== 3), true, true]);
      expect(results[3]).toEqual({ ok: false, error: 'lease_not_found' });
      // Nothing of the refused registration was stored.
      expect(await store.get('/reach/instances/b-3')).toBeNull();
      expect(await store.get('/skydns/y/b-3')).toBeNull();
      expect(await store.list('/reach/instances/b-')).toHaveLength(19);
      expect(await store.get('/reach/shared')).toBe('second');
    } finally {
      await store.close();
    }
  });
});
