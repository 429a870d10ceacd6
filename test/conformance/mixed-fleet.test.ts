// A Python agent and a TypeScript agent offering the same capability, side by side in one system: the
// orchestrator's runs reach both, and a SIGKILLed Python agent leaves DNS within the lease.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from '../dns/dns-tools.js';
import { AgentProcess } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';
import { type System, startSystem } from '../orchestrator/system.js';

// The conformance probe in each SDK: the same declaration (`echo`), so both are candidates for one node.
const TS_PROBE = join(REPO_ROOT, 'test/conformance/fixtures/probe-agent.ts');
const PY_PROBE = join(REPO_ROOT, 'test/conformance/fixtures/probe_agent.py');
const TASK = 'Echo the value back after sleeping: ping';

describe('a mixed fleet: Python and TypeScript agents serve the same capability', () => {
  let system: System;
  let python: AgentProcess;
  let typescript: AgentProcess;

  beforeAll(async () => {
    system = await startSystem({ agents: [{ key: 'synthesis' }] });
    const agent = (script: string, command?: string[]) =>
      AgentProcess.spawn({
        script,
        ...(command ? { command } : {}),
        registryUrl: system.registry.url,
        registryToken: system.token,
      });
    typescript = agent(TS_PROBE);
    python = agent(PY_PROBE, ['python3', PY_PROBE]);
    await Promise.all([typescript.heartbeating(), python.heartbeating()]);
  }, 120_000);
  afterAll(async () => {
    for (const agent of [python, typescript]) if (agent?.child.exitCode === null) await agent.kill();
    await system?.stop();
  });

  it("shares the orchestrator's calls of one capability between the Python and the TypeScript instance", async () => {
    const py = (await python.listed())!.instance_id;
    const ts = (await typescript.listed())!.instance_id;
    const served = new Map<string, number>();
    for (let i = 0; i < 40 && !(served.get(py) && served.get(ts)); i++) {
      const run = await system.api.run(`${TASK} (${i})`);
      expect(run.status, run.summary).toBe('ok');
      const trace = await system.api.trace(run.trace_id);
      const node = trace.nodes.find((n) => n.capability === 'echo');
      expect(node, JSON.stringify(trace.plan)).toMatchObject({
        status: 'succeeded',
        agent: 'conformance-probe',
      });
      const instance = (node as { instance_id?: string | null }).instance_id ?? '';
      served.set(instance, (served.get(instance) ?? 0) + 1);
    }
    expect(served.get(py), JSON.stringify([...served])).toBeGreaterThan(0);
    expect(served.get(ts), JSON.stringify([...served])).toBeGreaterThan(0);
  }, 240_000);

  it('SIGKILL of the Python agent: its records leave DNS within the lease', async () => {
    const view = (await python.listed())!;
    const host = `${view.instance_id}.agents.internal`;
    expect(await dig(system.registry.dnsPort, host, 'A', '+short')).toContain('127.0.0.1');
    await python.kill();
    const gone = performance.now();
    await pollUntil(
      async () => {
        const srv = await dig(system.registry.dnsPort, '_echo._tcp.agents.internal', 'SRV', '+short');
        const a = await dig(system.registry.dnsPort, host, 'A', '+short');
        return !srv.includes(host) && a.trim() === '' ? true : undefined;
      },
      30_000,
      () => `${host} still in DNS`,
      250,
    );
    // The registry's default lease is 15 s (heartbeat_timeout), plus one sweep.
    expect(performance.now() - gone).toBeLessThan(15_000 + 6_000);
    const srv = await dig(system.registry.dnsPort, '_echo._tcp.agents.internal', 'SRV', '+short');
    expect(srv).toContain((await typescript.listed())!.instance_id);
  }, 60_000);
});
