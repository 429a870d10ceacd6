import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Reply, udpQuery } from './dns-client.js';
import { agentBody, type RegistryWithDns, startRegistryWithDns } from './registry-harness.js';

// Short liveness so a lease runs out within the test: 0.5 s heartbeats, 1.5 s lease.
const HEARTBEAT_TIMEOUT_MS = 1500;
let env: RegistryWithDns;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  env = await startRegistryWithDns({ control_plane: { heartbeat_interval: 0.5, heartbeat_timeout: 1.5 } });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await env?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds for the answer; returns the milliseconds it took. */
async function waitFor(
  name: string,
  type: string,
  check: (reply: Reply) => boolean,
  limitMs: number,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (check(await udpQuery(env.dns.port, name, type))) return performance.now() - started;
    if (performance.now() - started > limitMs)
      throw new Error(`${name} ${type} did not change within ${limitMs} ms`);
    await sleep(1);
  }
}

/** Every name an instance of capability `crunch` appears under, with whether it appears there now. */
async function presence(instanceId: string): Promise<Record<string, boolean>> {
  const target = `${instanceId}.agents.internal`;
  const has = async (name: string, type: string, match: (data: unknown) => boolean) =>
    (await udpQuery(env.dns.port, name, type)).answers.some((rr) => match(rr.data));
  const srvTo = (data: unknown) => (data as { target?: string }).target === target;
  const svcbTo = (data: unknown) => Buffer.from(data as Buffer).includes(Buffer.from(instanceId));
  return {
    a: await has(target, 'A', () => true),
    flatSvcb: await has(target, 'UNKNOWN_64', () => true),
    indexSvcb: await has('_crunch._a2a._agents.agents.internal', 'UNKNOWN_64', svcbTo),
    roleSrv: await has('_crunch._tcp.agents.internal', 'SRV', srvTo),
    genericSrv: await has('_agent._tcp.agents.internal', 'SRV', srvTo),
  };
}

function spawnAgent(port: number): Promise<{ child: ChildProcess; instanceId: string }> {
  const script = fileURLToPath(new URL('./fixtures/heartbeat-agent.mjs', import.meta.url));
  const body = JSON.stringify(agentBody({ name: 'cruncher', port, capabilities: ['crunch'] }));
  const child = spawn(process.execPath, [script, env.registry.url, body], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n'))
        resolve({ child, instanceId: (JSON.parse(line!) as { instance_id: string }).instance_id });
    });
    child.stderr!.on('data', (chunk: Buffer) => reject(new Error(chunk.toString())));
    child.once('exit', (code) => reject(new Error(`agent exited with ${code} before registering`)));
  });
}

describe('registrations in the responder’s answers', () => {
  it('a new registration answers within 100 ms; a deregistered one is gone as fast', async () => {
    const lags: number[] = [];
    const gones: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { instance_id, lease_token } = await env.register(
        agentBody({ name: 'lagger', port: 7000 + i, capabilities: ['lag'] }),
      );
      const appeared = await waitFor(
        `${instance_id}.agents.internal`,
        'A',
        (r) => r.answers.length === 1,
        1000,
      );
      lags.push(appeared);
      await env.deregister(instance_id, lease_token);
      gones.push(await waitFor(`${instance_id}.agents.internal`, 'A', (r) => r.rcode === 'NXDOMAIN', 1000));
    }
    // The median, not the maximum: this 2-core machine is shared, and one scheduling hiccup is not a lag.
    const sorted = [...lags].sort((a, b) => a - b);
    expect(sorted[2], `lags ${sorted.map((l) => l.toFixed(1)).join(', ')} ms`).toBeLessThan(100);
    expect(sorted[4]).toBeLessThan(500);
    expect([...gones].sort((a, b) => a - b)[2]).toBeLessThan(100);
  });

  it('a SIGKILLed agent stays while its lease lives and leaves every answer once it expires', async () => {
    const { child, instanceId } = await spawnAgent(7100);
    await waitFor(`${instanceId}.agents.internal`, 'A', (r) => r.answers.length === 1, 1000);
    // Heartbeats keep it past several lease lengths.
    await sleep(2 * HEARTBEAT_TIMEOUT_MS);
    expect(Object.values(await presence(instanceId))).toEqual([true, true, true, true, true]);
    const killedAt = performance.now();
    child.kill('SIGKILL');
    await sleep(HEARTBEAT_TIMEOUT_MS / 3);
    expect((await presence(instanceId)).a).toBe(true);
    await waitFor(
      `${instanceId}.agents.internal`,
      'A',
      (r) => r.rcode === 'NXDOMAIN',
      HEARTBEAT_TIMEOUT_MS + 3000,
    );
    const goneAfter = performance.now() - killedAt;
    expect(goneAfter).toBeGreaterThan(HEARTBEAT_TIMEOUT_MS / 2);
    expect(await presence(instanceId)).toEqual({
      a: false,
      flatSvcb: false,
      indexSvcb: false,
      roleSrv: false,
      genericSrv: false,
    });
  });
});
