// Diagnostic, not a suite (`npx tsx bench/etcd-list-diagnose.ts`, under the bench lock): N (100,000)
// identity-sized keys on a fresh etcd, then ROUNDS listings of them through the etcd store's `list` (the
// leader's identity pass), each with etcd's CPU and its time. The first listing pages without cuts (each
// page walks etcd's index to the end of the prefix); the later ones use the cuts of the one before.

import { EtcdUnaryClient, openEtcdStore } from '@agent-reach/registry';
import { ETCD_SERVER_FLAGS } from '../scripts/cluster/etcd-flags.js';
import { startEtcd } from '../test/harness/etcd.js';
import { cpuDuring } from './lib/cpu.js';

const N = Number(process.env.N ?? 100_000);
const etcd = await startEtcd({ extraArgs: ETCD_SERVER_FLAGS });
try {
  const client = new EtcdUnaryClient([etcd.endpoint], 30_000);
  const value = (i: number) =>
    Buffer.from(
      JSON.stringify({
        instance_id: `bench-agent-${i % 50}-${i.toString(16).padStart(5, '0')}`,
        agent_name: `bench-agent-${i % 50}`,
        lease_token_hash: 'x'.repeat(64),
      }),
    );
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < N) {
        const from = next;
        next = Math.min(N, next + 128);
        const ops = [];
        for (let i = from; i < next; i++)
          ops.push({
            request_put: {
              key: Buffer.from(`/reach/identities/bench-agent-${i % 50}-${i.toString(16).padStart(5, '0')}`),
              value: value(i),
            },
          });
        await client.txn(ops);
      }
    }),
  );
  client.close();
  const store = await openEtcdStore({ endpoints: [etcd.endpoint], callTimeoutMs: 60_000 });
  for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
    const started = performance.now();
    const { result, cpuMs } = await cpuDuring([etcd.pid()!], () => store.list('/reach/identities/'));
    console.log(
      `listing ${round}: ${result.length} keys in ${(performance.now() - started).toFixed(0)} ms, etcd cpu ${cpuMs} ms`,
    );
  }
  await store.close();
} finally {
  await etcd.stop();
}
