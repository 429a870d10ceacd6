import { openEtcdStore } from '@agent-reach/registry';
import { expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';

const cluster = useEtcd();

// etcd serves one keep-alive stream's refreshes in order, and a refresh of a lease that expired but is
// not revoked yet waits for its revocation (etcd revokes at most 1,000 leases a second). A mass expiry
// at 100,000 instances must not hold up the heartbeats of the instances that are alive.
it('answers the keep-alive of a live lease without waiting behind refreshes of expired, unrevoked leases', async () => {
  const store = await openEtcdStore({ endpoints: [cluster.etcd.endpoint], onError: () => undefined });
  try {
    // 4,000 leases of 2 s, granted together: once expired, revoking them all takes etcd about 4 s (more on
    // a loaded machine; the stream of possibly expired leases waits for that, LATE_KEEPALIVE_STALL_MS).
    const grants = await Promise.all(
      Array.from({ length: 4000 }, () => cluster.raw.leaseClient.leaseGrant({ TTL: 2 })),
    );
    const doomed = grants.map((grant) => String(grant.ID));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const live = await store.grantLease(60_000);

    const answered: string[] = [];
    const expired = Promise.all(
      doomed.map(async (lease) => {
        const result = await store.keepAlive(lease);
        answered.push('expired');
        return result;
      }),
    );
    const kept = store.keepAlive(live).then((result) => {
      answered.push('live');
      return result;
    });

    expect(await kept).toEqual({ ok: true, value: { ttlMs: 60_000 } });
    const results = await expired;
    // Every expired lease is reported gone (the heartbeat then asks the agent to register again)...
    expect(results.filter((result) => result.ok)).toEqual([]);
    expect(results.every((result) => !result.ok && result.error === 'lease_not_found')).toBe(true);
    // ...and the live one did not wait for them: asked last, it was answered well before the last of them.
    expect(answered.indexOf('live')).toBeLessThan(answered.length / 2);
  } finally {
    await store.close();
  }
}, 90_000);
