import { openEtcdStore, registryConfigFrom, registryLogger, startRegistry } from '@agent-reach/registry';
import { startEtcd } from '../test/harness/etcd.js';
import { type Figure, printFigures } from './lib/report.js';

/** Instances, and heartbeat passes over all of them (one pass = one heartbeat interval's worth). */
const INSTANCES = 1000;
const PASSES = 3;

function registrationBody(i: number): string {
  return JSON.stringify({
    declaration: {
      agent_name: `facts-agent-${i}`,
      domain: 'bench',
      capabilities: { crunch: { input: ['text'], output: ['text'] } },
    },
    endpoint: { host: '127.0.0.1', port: 20_000 + (i % 40_000) },
    card_sha256: 'A'.repeat(43),
  });
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/**
 * The cost of sharing liveness facts between two registry replicas on one etcd: heartbeats go to
 * replica A, which writes their facts in batches; replica B applies them from its watch. Reference in
 * the same run: the heartbeats themselves (token check, seq, one etcd keep-alive each).
 */
export async function benchLiveness(): Promise<void> {
  const etcd = await startEtcd();
  // Long leases: registering and heartbeating 1000 instances in-process takes seconds on a loaded machine.
  const config = registryConfigFrom({
    control_plane: { listen: '127.0.0.1:0', heartbeat_interval: '20s', heartbeat_timeout: '60s' },
  });
  const logger = registryLogger('warn');
  const stores = [
    await openEtcdStore({ endpoints: [etcd.endpoint] }),
    await openEtcdStore({ endpoints: [etcd.endpoint] }),
  ];
  const a = await startRegistry({
    config,
    store: stores[0]!,
    logger,
    replicaId: 'bench-a',
    listen: { host: '127.0.0.1', port: 0 },
  });
  const b = await startRegistry({
    config,
    store: stores[1]!,
    logger,
    replicaId: 'bench-b',
    listen: { host: '127.0.0.1', port: 0 },
  });
  try {
    const leases: Array<{ id: string; token: string }> = [];
    for (let i = 0; i < INSTANCES; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, INSTANCES - i) }, async (_, k) => {
          const res = await a.app.request('/v1/agents', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: registrationBody(i + k),
          });
          const body = (await res.json()) as { instance_id: string; lease_token: string; message?: string };
          if (res.status !== 201) throw new Error(`registration ${i + k}: ${res.status} ${body.message}`);
          return { id: body.instance_id, token: body.lease_token };
        }),
      );
      leases.push(...batch);
    }
    await a.facts!.flush();
    let beatCpu = 0;
    let beatWall = 0;
    let flushCpu = 0;
    let flushWall = 0;
    let applyWall = 0;
    let flushed = 0;
    const commitsBefore = a.facts!.counts.commits;
    for (let pass = 1; pass <= PASSES; pass++) {
      const appliedBefore = b.facts!.counts.applied;
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < leases.length; i += 100)
        await Promise.all(
          leases.slice(i, i + 100).map(async (lease) => {
            const res = await a.app.request(`/v1/agents/${lease.id}/heartbeat`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${lease.token}` },
              body: JSON.stringify({ seq: pass }),
            });
            if (res.status !== 200) throw new Error(`heartbeat: ${res.status} ${await res.text()}`);
          }),
        );
      beatWall += performance.now() - t0;
      beatCpu += cpuMs(cpu);
      const flushCpuStart = process.cpuUsage();
      const writtenBefore = a.facts!.counts.written;
      const t1 = performance.now();
      await a.facts!.flush();
      flushWall += performance.now() - t1;
      flushCpu += cpuMs(flushCpuStart);
      // The flush timer may have written some during the pass: count what this flush wrote.
      flushed += a.facts!.counts.written - writtenBefore;
      const t2 = performance.now();
      while (b.facts!.counts.applied - appliedBefore < leases.length && performance.now() - t2 < 10_000)
        await new Promise((resolve) => setTimeout(resolve, 5));
      applyWall += performance.now() - t2;
    }
    const facts = INSTANCES * PASSES;
    const figures: Figure[] = [
      {
        name: `writing ${INSTANCES} facts (replica A, CPU per fact, batched)`,
        value: (flushCpu * 1000) / Math.max(1, flushed),
        unit: 'µs',
        reference: { name: 'one heartbeat, CPU', value: (beatCpu * 1000) / facts },
      },
      {
        name: `etcd transactions to share ${INSTANCES} heartbeats`,
        value: (a.facts!.counts.commits - commitsBefore) / PASSES,
        unit: 'txn',
        reference: { name: 'keep-alives the heartbeats cost', value: INSTANCES },
      },
      {
        name: `flush of ${INSTANCES} facts, wall`,
        value: flushWall / PASSES,
        unit: 'ms',
        reference: { name: `${INSTANCES} heartbeats, wall`, value: beatWall / PASSES },
      },
      {
        name: `until replica B applied all ${INSTANCES} (after the flush)`,
        value: applyWall / PASSES,
        unit: 'ms',
      },
    ];
    printFigures(
      `Shared liveness facts: two replicas, ${INSTANCES} instances (bench/liveness.bench.ts)`,
      figures,
    );
  } finally {
    await b.stop();
    await a.stop();
    for (const store of stores) await store.close();
    await etcd.stop();
  }
}
