import { openEtcdStore, type RegistryStore } from '@agent-reach/registry';
import { describeStoreContract } from '@agent-reach/registry/testing';
import { describe, expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';

const cluster = useEtcd();

const randomPrefix = () => `/test-${Math.random().toString(36).slice(2, 10)}`;
const open = (prefix: string, extra: { callTimeoutMs?: number } = {}) =>
  openEtcdStore({
    endpoints: [cluster.etcd.endpoint],
    prefix,
    electionTtlSeconds: 2,
    onError: () => undefined,
    ...extra,
  });

describeStoreContract('etcd', async () => {
  const prefix = randomPrefix();
  const opened: RegistryStore[] = [];
  let current = await open(prefix);
  opened.push(current);
  return {
    get store() {
      return current;
    },
    reopen: async () => {
      await current.close();
      current = await open(prefix);
      opened.push(current);
      return current;
    },
    peer: async () => {
      const other = await open(prefix);
      opened.push(other);
      return other;
    },
    cleanup: async () => {
      await Promise.all(opened.map((store) => store.close()));
      await cluster.raw.delete().prefix(prefix).exec();
    },
  };
});

describe('EtcdStore against real etcd', () => {
  it('keeps every key under its prefix, and rounds TTLs up to whole seconds', async () => {
    const prefix = randomPrefix();
    const store = await open(prefix);
    const other = await open(randomPrefix());
    const { raw } = cluster;
    try {
      const lease = await store.grantLease(2_500);
      await store.commit({ puts: [{ key: '/skydns/internal/agents/x', value: '{}', lease }] });
      expect(await raw.get(`${prefix}/skydns/internal/agents/x`).string()).toBe('{}');
      expect(await other.list('/skydns/')).toEqual([]);
      expect(await store.keepAlive(lease)).toEqual({ ok: true, value: { ttlMs: 3_000 } });
      await store.revokeLease(lease);
      await raw.delete().prefix(prefix).exec();
    } finally {
      await store.close();
      await other.close();
    }
  });

  it('hands leadership over when the leader session dies without resigning', async () => {
    const prefix = randomPrefix();
    const a = await open(prefix);
    const b = await open(prefix);
    const { raw } = cluster;
    try {
      const leader = await a.campaign('reach-registry-leader', 'a');
      const follower = await b.campaign('reach-registry-leader', 'b');
      expect([leader.isLeader, follower.isLeader]).toEqual([true, false]);
      const lost = new Promise<void>((resolve) => leader.onChange((v) => !v && resolve()));
      const won = new Promise<void>((resolve) => follower.onChange((v) => v && resolve()));
      // Kill the leader's session behind its back, as a partition or a crash would.
      const keys = await raw.getAll().prefix(`${prefix}/reach/election/reach-registry-leader/`).exec();
      const first = [...keys.kvs].sort((x, y) =>
        Number(BigInt(x.create_revision) - BigInt(y.create_revision)),
      )[0]!;
      await raw.leaseClient.leaseRevoke({ ID: first.lease });
      await Promise.all([lost, won]);
      expect([leader.isLeader, follower.isLeader]).toEqual([false, true]);
      await leader.resign();
      await follower.resign();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('answers STORE_UNAVAILABLE while etcd is down, and works again once it is back', async () => {
    const store = await open(randomPrefix(), { callTimeoutMs: 1_000 });
    try {
      await store.commit({ puts: [{ key: '/k', value: 'v' }] });
      cluster.etcd.kill();
      await expect(store.get('/k')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await expect(store.commit({ puts: [{ key: '/k', value: 'w' }] })).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
      });
      await expect(store.keepAlive('12345')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await cluster.etcd.restart();
      await expect.poll(() => store.get('/k').catch(() => 'unavailable'), { timeout: 15_000 }).toBe('v');
    } finally {
      await store.close();
    }
  });

  it('refuses to open when etcd does not answer', async () => {
    await expect(
      openEtcdStore({ endpoints: ['http://127.0.0.1:1'], callTimeoutMs: 500, onError: () => undefined }),
    ).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
