import { fileURLToPath } from 'node:url';
import type { InstanceView } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { RegistryProcess } from '../harness/registry-process.js';
import { useEtcd } from '../harness/use-etcd.js';

const BUSY_AGENT = fileURLToPath(new URL('../../apps/agent-sdk/src/testing/busy-agent.ts', import.meta.url));
const AGENTS = 4;
const TIMEOUT_MS = 3_000;
// The lease is the dead-man switch (the registry's own deadline is TIMEOUT_MS): frozen past it.
const LEASE_TTL_MS = 5_000;
const FROZEN_MS = 6_000;

const cluster = useEtcd();
let registry: RegistryProcess;
const agents: AgentProcess[] = [];
beforeAll(async () => {
  registry = await RegistryProcess.start({
    config: {
      control_plane: {
        heartbeat_interval: '1s',
        heartbeat_timeout: `${TIMEOUT_MS}ms`,
        lease_ttl: `${LEASE_TTL_MS}ms`,
      },
      storage: { type: 'etcd', etcd: { endpoints: [cluster.etcd.endpoint] } },
    },
  });
});
afterAll(async () => {
  cluster.etcd.thaw();
  await Promise.all(agents.map((agent) => agent.kill()));
  await registry?.dispose();
});

const listed = async (): Promise<InstanceView[]> => {
  const res = await fetch(`${registry.url}/v1/agents`, { signal: AbortSignal.timeout(3_000) });
  return ((await res.json()) as { instances: InstanceView[] }).instances;
};

describe('etcd frozen past a lease', () => {
  it('brings every agent back under its old instance id', async () => {
    for (let i = 0; i < AGENTS; i++)
      agents.push(AgentProcess.spawn({ script: BUSY_AGENT, registryUrl: registry.url }));
    const before = (await Promise.all(agents.map((agent) => agent.registered()))).map(
      ({ ready }) => ready.instanceId,
    );
    await Promise.all(agents.map((agent) => agent.heartbeating()));

    cluster.etcd.freeze();
    await new Promise((resolve) => setTimeout(resolve, FROZEN_MS));
    cluster.etcd.thaw();

    // Their leases ran out while etcd stood still: the SDK re-registers, presenting the previous id.
    const reRegistered = () =>
      agents.flatMap((agent) =>
        agent.stderr.lines
          .filter((line) => line.includes('"re-registered"'))
          .map((line) => JSON.parse(line) as { previous: string; instance_id: string; same_id: boolean }),
      );
    await pollUntil(
      async () => {
        const live = await listed().catch(() => []);
        const healthy = live.filter((view) => view.state === 'healthy').map((view) => view.instance_id);
        return reRegistered().length > 0 && healthy.length === AGENTS ? true : undefined;
      },
      30_000,
      () => `agents did not come back: ${JSON.stringify(reRegistered())}\n${registry.stdout.tail(10)}`,
      200,
    );
    for (const line of reRegistered()) expect(line.instance_id).toBe(line.previous);
    const after = (await listed()).map((view) => view.instance_id).sort();
    expect(after).toEqual([...before].sort());
  });
});
