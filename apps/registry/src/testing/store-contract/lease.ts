import { expect, it } from 'vitest';
import { EventLog, type StoreUnderTest, sleep, uniquePrefix, waitFor } from './harness.js';

/** etcd's smallest TTL is 2 s (1.5 election timeouts, rounded up); every implementation is tested with it. */
export const SHORT_TTL_MS = 2_000;

/** Lease grant, keep-alive, expiry and revocation. */
export function leaseContract(ctx: () => StoreUnderTest): void {
  it('expires a lease, deleting all its keys at once with delete events', async () => {
    const { store } = ctx();
    const p = uniquePrefix('lease');
    const log = new EventLog();
    const watch = await store.watch(p, log.listener);
    const lease = await store.grantLease(SHORT_TTL_MS);
    const granted = Date.now();
    await store.commit({
      puts: [
        { key: `${p}a`, value: '1', lease },
        { key: `${p}b`, value: '2', lease },
        { key: `${p}durable`, value: '3' },
      ],
    });
    await sleep(SHORT_TTL_MS / 2);
    expect((await store.list(p)).length).toBe(3);
    await waitFor('the lease to expire', async () => (await store.get(`${p}a`)) === null);
    expect(Date.now() - granted).toBeGreaterThanOrEqual(SHORT_TTL_MS - 50);
    // Both keys went in the same step: once one is gone, so is the other.
    expect(await store.get(`${p}b`)).toBeNull();
    expect(await store.get(`${p}durable`)).toBe('3');
    await waitFor('the delete events', () => log.events.filter((e) => e.type === 'delete').length === 2);
    const deletes = log.events.filter((e) => e.type === 'delete').map((e) => e.key);
    expect(deletes.sort()).toEqual([`${p}a`, `${p}b`]);
    expect(await store.keepAlive(lease)).toEqual({ ok: false, error: 'lease_not_found' });
    await watch.close();
  });

  it('keeps a lease alive past its TTL while refreshed, then lets it expire', async () => {
    const { store } = ctx();
    const p = uniquePrefix('lease');
    const lease = await store.grantLease(SHORT_TTL_MS);
    await store.commit({ puts: [{ key: `${p}k`, value: 'v', lease }] });
    const started = Date.now();
    while (Date.now() - started < SHORT_TTL_MS * 1.75) {
      const refreshed = await store.keepAlive(lease);
      expect(refreshed.ok).toBe(true);
      if (refreshed.ok) expect(refreshed.value.ttlMs).toBeGreaterThanOrEqual(SHORT_TTL_MS - 1000);
      await sleep(400);
    }
    expect(await store.get(`${p}k`)).toBe('v');
    await waitFor('the lease to expire', async () => (await store.get(`${p}k`)) === null);
    expect(await store.keepAlive(lease)).toEqual({ ok: false, error: 'lease_not_found' });
  });

  it('answers lease_not_found for a lease that never existed', async () => {
    const { store } = ctx();
    expect(await store.keepAlive('7')).toEqual({ ok: false, error: 'lease_not_found' });
    expect(await store.keepAlive('not-a-lease')).toEqual({ ok: false, error: 'lease_not_found' });
  });

  it('revokes a lease, deleting its keys at once, and ignores unknown leases', async () => {
    const { store } = ctx();
    const p = uniquePrefix('lease');
    const log = new EventLog();
    const watch = await store.watch(p, log.listener);
    const lease = await store.grantLease(30_000);
    await store.commit({
      puts: [
        { key: `${p}a`, value: '1', lease },
        { key: `${p}b`, value: '2', lease },
      ],
    });
    await store.revokeLease(lease);
    expect(await store.list(p)).toEqual([]);
    expect(await store.keepAlive(lease)).toEqual({ ok: false, error: 'lease_not_found' });
    await store.revokeLease(lease);
    await store.revokeLease('7');
    await waitFor('the delete events', () => log.events.filter((e) => e.type === 'delete').length === 2);
    await watch.close();
  });

  it('detaches a key from its lease when it is put again without one', async () => {
    const { store } = ctx();
    const p = uniquePrefix('lease');
    const lease = await store.grantLease(30_000);
    await store.commit({
      puts: [
        { key: `${p}k`, value: 'leased', lease },
        { key: `${p}other`, value: 'o', lease },
      ],
    });
    await store.commit({ puts: [{ key: `${p}k`, value: 'free' }] });
    await store.revokeLease(lease);
    expect(await store.list(p)).toEqual([{ key: `${p}k`, value: 'free' }]);
  });

  it('deletes lease-bound keys in a commit, keeping the lease and its other keys', async () => {
    const { store } = ctx();
    const p = uniquePrefix('lease');
    const lease = await store.grantLease(30_000);
    await store.commit({
      puts: ['a', 'b', 'c'].map((k) => ({ key: `${p}${k}`, value: k, lease })),
    });
    expect((await store.commit({ deletes: [`${p}b`, `${p}c`] })).ok).toBe(true);
    expect(await store.get(`${p}b`)).toBeNull();
    expect(await store.list(p)).toEqual([{ key: `${p}a`, value: 'a', lease }]);
    await store.commit({ puts: [{ key: `${p}b`, value: 'again', lease }] });
    await store.revokeLease(lease);
    expect(await store.list(p)).toEqual([]);
  });
}
