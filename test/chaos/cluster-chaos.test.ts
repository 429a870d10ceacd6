import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { udpQuery } from '../dns/dns-client.js';
import { registerBody } from '../e2e-registry/http-registration.js';
import { pollUntil } from '../harness/child-output.js';
import { ClusterUnderTest } from './cluster-harness.js';

// The production shape of `pnpm start --cluster`: three etcd members, two registries behind one
// address, two orchestrators on Postgres, nine demo agents. Each fault is measured while it lasts:
// DNS answers that miss a healthy agent or show it at another priority, and registrations lost.

let cluster: ClusterUnderTest;
/** Each healthy demo agent's instance id, as registered before any fault. */
let agents: string[];
const figures: Record<string, unknown> = {};

interface Instance {
  instance_id: string;
  state: string;
}
async function instances(): Promise<Instance[]> {
  const res = await fetch(`${cluster.registryUrl}/v1/agents`, { signal: AbortSignal.timeout(3000) });
  return ((await res.json()) as { instances: Instance[] }).instances;
}

/** Whether the registry of that name says it leads (its /metrics gauge). */
async function leads(name: string): Promise<boolean> {
  try {
    const text = await (
      await fetch(`${cluster.get(name).url}/metrics`, { signal: AbortSignal.timeout(1000) })
    ).text();
    return /^reach_registry_leader 1$/m.test(text);
  } catch {
    return false;
  }
}

/**
 * Asks the DNS responders of the named registries for every agent (`_agent._tcp` SRV) every 200 ms
 * until stopped; an answer is lost when it does not come, or lacks a healthy agent, or shows one at a
 * priority other than healthy (10).
 */
function watchDns(registries: string[]) {
  let asked = 0;
  let lost = 0;
  const misses: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const name of registries) {
        asked++;
        try {
          const reply = await udpQuery(cluster.get(name).dnsPort!, '_agent._tcp.agents.internal', 'SRV');
          const byTarget = new Map<string, number>();
          for (const answer of reply.answers ?? []) {
            if (answer.type !== 'SRV') continue;
            const srv = answer.data as { target: string; priority: number };
            byTarget.set(srv.target.split('.')[0]!, srv.priority);
          }
          const wrong = agents.filter((id) => byTarget.get(id) !== 10);
          if (wrong.length > 0) {
            lost++;
            misses.push(`${name}: ${wrong.map((id) => `${id}=${byTarget.get(id) ?? 'missing'}`).join(' ')}`);
          }
        } catch (error) {
          lost++;
          misses.push(`${name}: ${(error as Error).message}`);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { asked, lost, misses: misses.slice(0, 5) };
    },
  };
}

async function registrationsLost(): Promise<string[]> {
  const ids = new Set((await instances()).map((i) => i.instance_id));
  return agents.filter((id) => !ids.has(id));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  cluster = await ClusterUnderTest.start();
  // The nine demo agents registered (through the balancer, so to either registry) and are healthy.
  await pollUntil(
    async () => {
      const live = await instances().catch(() => []);
      return live.length === cluster.of('agent').length && live.every((i) => i.state === 'healthy')
        ? true
        : undefined;
    },
    120_000,
    () => 'demo agents did not all register',
  );
  agents = (await instances()).map((i) => i.instance_id);
  // Past the first weight passes, so DNS shows published weights.
  await sleep(6000);
}, 300_000);
afterAll(async () => {
  // The registries' warnings and errors, so a failed run says what the registries saw.
  for (const name of ['registry-1', 'registry-2']) {
    const problems = (cluster?.logs.get(name)?.lines ?? []).filter((line) => /"level":(4|5|6)0/.test(line));
    console.log(`${name} warnings and errors (last 20):\n${problems.slice(-20).join('\n')}`);
  }
  await cluster?.stop();
  console.log(`cluster chaos figures: ${JSON.stringify(figures, null, 2)}`);
}, 120_000);

describe('the cluster shape under faults', () => {
  it('kill the leader registry: the other leads within 3 s, DNS and registrations lose nothing', async () => {
    const leader = (await leads('registry-1')) ? 'registry-1' : 'registry-2';
    const survivor = leader === 'registry-1' ? 'registry-2' : 'registry-1';
    expect(await leads(survivor)).toBe(false);
    const dns = watchDns([survivor]);
    const killedAt = performance.now();
    await cluster.kill(leader);
    await pollUntil(
      () => leads(survivor).then((yes) => (yes ? true : undefined)),
      10_000,
      () => `${survivor} never led`,
      25,
    );
    const failoverMs = Math.round(performance.now() - killedAt);
    // Longer than the heartbeat timeout: the agents that heartbeated to the killed one now reach the survivor.
    await sleep(20_000);
    const answers = await dns.stop();
    const lost = await registrationsLost();
    figures.leaderKill = { failoverMs, dns: answers, registrationsLost: lost.length };
    expect(failoverMs).toBeLessThan(3000);
    expect(answers.lost, answers.misses.join('\n')).toBe(0);
    expect(lost).toEqual([]);
    cluster.launch(leader);
    await cluster.waitFor(leader, cluster.get(leader).readyUrl!);
  });

  it('kill one etcd member: DNS keeps every healthy agent, registrations keep working', async () => {
    const dns = watchDns(['registry-1', 'registry-2']);
    await cluster.kill('etcd-0');
    const start = performance.now();
    // Known limit: a read through the etcd3 library whose channel sat on the killed member can run into
    // the store's 5 s deadline once (503 STORE_UNAVAILABLE, nothing stored); a caller's retry — the SDK
    // retries registration with backoff — then succeeds on a live member.
    let res: Response | undefined;
    let attempts = 0;
    while (attempts < 3 && res?.status !== 201) {
      attempts += 1;
      res = await fetch(`${cluster.registryUrl}/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(registerBody('chaos-probe', 9)),
      });
      if (res.status !== 201)
        expect(((await res.json()) as { code?: string }).code).toBe('STORE_UNAVAILABLE');
    }
    const registerMs = Math.round(performance.now() - start);
    expect(res?.status).toBe(201);
    expect(attempts).toBeLessThanOrEqual(2);
    await sleep(15_000);
    const answers = await dns.stop();
    const lost = await registrationsLost();
    figures.oneEtcdMemberKilled = { registerMs, attempts, dns: answers, registrationsLost: lost.length };
    expect(answers.lost, answers.misses.join('\n')).toBe(0);
    expect(lost).toEqual([]);
    cluster.launch('etcd-0');
    await cluster.waitFor('etcd-0', `${cluster.get('etcd-0').url}/health`);
  });

  it('kill two etcd members (no quorum): DNS answers from cache, writes answer 503 with a code, nothing is lost when quorum returns', async () => {
    const dns = watchDns(['registry-1', 'registry-2']);
    await cluster.kill('etcd-1');
    await cluster.kill('etcd-2');
    const lostAt = performance.now();
    // A write without quorum: a clear 503 with its code, within the store's call deadline.
    const write = await fetch(`${cluster.registryUrl}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registerBody('no-quorum', 9)),
      signal: AbortSignal.timeout(30_000),
    });
    const writeBody = (await write.json()) as { code?: string };
    expect(write.status).toBe(503);
    expect(writeBody.code).toBe('STORE_UNAVAILABLE');
    await sleep(Math.max(0, 12_000 - (performance.now() - lostAt)));
    const withoutQuorumMs = Math.round(performance.now() - lostAt);
    cluster.launch('etcd-1');
    cluster.launch('etcd-2');
    for (const member of ['etcd-1', 'etcd-2'])
      await cluster.waitFor(member, `${cluster.get(member).url}/health`);
    const quorumAt = performance.now();
    // Heartbeats are taken again and the agents stay what they were.
    await sleep(15_000);
    const answers = await dns.stop();
    const lost = await registrationsLost();
    const states = (await instances()).filter((i) => agents.includes(i.instance_id)).map((i) => i.state);
    figures.noQuorum = {
      withoutQuorumMs,
      writeStatus: write.status,
      writeCode: writeBody.code,
      dns: answers,
      registrationsLost: lost.length,
      afterQuorumMs: Math.round(performance.now() - quorumAt),
    };
    expect(answers.lost, answers.misses.join('\n')).toBe(0);
    expect(lost).toEqual([]);
    expect(states.every((s) => s === 'healthy')).toBe(true);
  });

  it('kill an orchestrator mid-run: the other serves the run’s trace and new runs', async () => {
    const [first, second] = cluster.of('orchestrator');
    const started = await fetch(`${first!.url}/api/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: '设计一份生日派对策划，并列出风险和验收清单' }),
    });
    expect(started.status).toBeLessThan(300);
    const { trace_id: traceId } = (await started.json()) as { trace_id: string };
    await sleep(300);
    await cluster.kill(first!.name);
    // The run's record is in Postgres: the other orchestrator shows it.
    const trace = await fetch(`${second!.url}/api/traces/${traceId}`);
    expect(trace.status).toBe(200);
    const run = await fetch(`${second!.url}/api/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'summarize the plan in three lines' }),
      signal: AbortSignal.timeout(60_000),
    });
    const body = (await run.json()) as { status?: string };
    figures.orchestratorKill = { killedRunVisibleOnOther: trace.status === 200, newRunStatus: body.status };
    expect(run.status).toBe(200);
    expect(['ok', 'degraded']).toContain(body.status);
  });
});
