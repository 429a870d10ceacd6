import { expect, it } from 'vitest';
import { type StoreUnderTest, uniquePrefix, waitFor } from './harness.js';
import { SHORT_TTL_MS } from './lease.js';

/** A restart keeps durable keys and live registrations with their leases. */
export function restartContract(ctx: () => StoreUnderTest): void {
  it('keeps durable and lease-bound keys across a restart, and the lease stays usable', async ({ skip }) => {
    const { store, reopen } = ctx();
    if (reopen === undefined) return skip('this store cannot be restarted');
    const p = uniquePrefix('restart');
    const lease = await store.grantLease(SHORT_TTL_MS * 2);
    const revoked = await store.grantLease(30_000);
    await store.commit({
      puts: [
        { key: `${p}durable`, value: 'd' },
        { key: `${p}live/a`, value: 'a', lease },
        { key: `${p}live/b`, value: 'b', lease },
        { key: `${p}gone`, value: 'g', lease: revoked },
        { key: `${p}deleted`, value: 'x' },
      ],
    });
    await store.commit({ puts: [{ key: `${p}durable`, value: 'd2' }], deletes: [`${p}deleted`] });
    await store.revokeLease(revoked);
    const restarted = await reopen();
    expect(await restarted.list(p)).toEqual([
      { key: `${p}durable`, value: 'd2' },
      { key: `${p}live/a`, value: 'a', lease },
      { key: `${p}live/b`, value: 'b', lease },
    ]);
    expect((await restarted.keepAlive(lease)).ok).toBe(true);
    expect(await restarted.keepAlive(revoked)).toEqual({ ok: false, error: 'lease_not_found' });
    // A lease granted after the restart never reuses an old id.
    const fresh = await restarted.grantLease(30_000);
    expect([lease, revoked]).not.toContain(fresh);
    await restarted.revokeLease(lease);
    await waitFor('the revoke', async () => (await restarted.list(`${p}live/`)).length === 0);
    expect(await restarted.get(`${p}durable`)).toBe('d2');
    await restarted.revokeLease(fresh);
  });
}
