import { ReachClient, type ReachResult } from '@agent-reach/sdk/client';
import type { FailureClass } from '@agent-reach/sdk/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../harness/child-output.js';
import { freePort } from '../harness/ports.js';
import { useRoutingEnv, WARMUP_MS } from './routing-env.js';

const getEnv = useRoutingEnv();
const clients: ReachClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

function client(options: ConstructorParameters<typeof ReachClient>[0] = {}): ReachClient {
  const made = new ReachClient({
    registryUrl: getEnv().registry.url,
    executionTimeout: '1500ms',
    ...options,
  });
  clients.push(made);
  return made;
}

/** Calls until the registry's weighted order puts `instanceId` first (it mostly does); returns that call. */
async function callUntilFirst(
  reach: ReachClient,
  operation: string,
  instanceId: string,
): Promise<ReachResult> {
  for (let i = 0; i < 20; i += 1) {
    const result = await reach.reach({ need: { operation }, input: {} });
    const attempts = result.ok
      ? result.value.attempts
      : (result.error.data as { attempts: Array<{ instance_id: string }> }).attempts;
    if (attempts[0]?.instance_id === instanceId) return result;
  }
  throw new Error(`${instanceId} never came first for ${operation}`);
}

describe('routing with a real registry and real agents', () => {
  it('filters by domain, operation and constraints', async () => {
    const env = getEnv();
    const fits = await env.route({
      operation: 'summarize',
      domain: 'text_processing',
      constraints: { input_size: 5000, max_latency_sec: 2, output_format: 'json' },
    });
    expect(fits.candidates.map((c) => c.instance_id).sort()).toEqual([...env.workerIds].sort());
    for (const constraints of [{ input_size: 5001 }, { max_latency_sec: 1 }, { output_format: 'csv' }]) {
      expect((await env.route({ operation: 'summarize', constraints })).candidates).toEqual([]);
    }
    expect((await env.route({ operation: 'summarize', domain: 'data_analysis' })).candidates).toEqual([]);
  });

  it.each<[string, 'connect' | 'noack' | '5xx' | '429', FailureClass]>([
    ['probe_connect', 'connect', 'connect'],
    ['probe_noack', 'noack', 'ack_timeout'],
    ['probe_5xx', '5xx', 'http_5xx'],
    ['probe_429', '429', 'overloaded'],
  ])(
    '%s: a %s failure before the ack moves on to the next candidate with the same request_id',
    async (operation, mode, failure) => {
      const env = getEnv();
      const rogue = env.rogues[mode];
      const result = await callUntilFirst(client(), operation, rogue);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const [first, second] = result.value.attempts;
      expect(first).toMatchObject({ instance_id: rogue, failure, acked: false });
      if (failure === 'ack_timeout') expect(first!.latency_ms).toBeGreaterThanOrEqual(1990);
      if (failure === 'ack_timeout') expect(first!.latency_ms).toBeLessThan(2600);
      expect(env.workerIds).toContain(second!.instance_id);
      const served = env.workers.find((_, i) => env.workerIds[i] === second!.instance_id)!;
      await pollUntil(
        () => (env.invoked(served).includes(result.value.request_id) ? true : undefined),
        5000,
        () => `the fallback target never logged ${result.value.request_id}`,
      );
    },
  );

  it('a crash mid-stream (the agent process dies after its ack) falls back for an idempotent request', async () => {
    const env = getEnv();
    const result = await callUntilFirst(client(), 'probe_crash', env.crasherId);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.attempts[0]).toMatchObject({
      instance_id: env.crasherId,
      failure: 'stream_broken',
      acked: true,
    });
    expect(await env.crasher.exited).toMatchObject({ signal: 'SIGKILL' });
  });

  it('ack then silence is an execution timeout, and a non-idempotent request is not sent anywhere else', async () => {
    const env = getEnv();
    const result = await callUntilFirst(client(), 'probe_silent', env.rogues.silent);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('TIMEOUT');
    expect(result.error.data).toMatchObject({
      failures: [{ instance_id: env.rogues.silent, failure: 'execution_timeout', acked: true }],
    });
    const requestId = (result.error.data as { request_id: string }).request_id;
    // Give a wrongly re-sent request time to show up in the workers' logs before checking it did not.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const worker of env.workers) expect(env.invoked(worker)).not.toContain(requestId);
  });

  it('story 5.3: a long task with a correct deadline runs once and yields one result', async () => {
    const env = getEnv();
    // Scaled: the default execution timeout is 1 s here, the task takes 2.5 s, the caller allows 3 s.
    const reach = client({ executionTimeout: '1s' });
    const result = await reach.reach({
      need: { operation: 'longtask' },
      input: { delay_ms: 2500 },
      deadline: '3s',
      idempotent: true,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.results).toHaveLength(1);
    expect(result.value.attempts).toHaveLength(1);
    const runs = () =>
      env.workers.flatMap((worker) => env.invoked(worker)).filter((id) => id === result.value.request_id);
    await pollUntil(
      () => (runs().length > 0 ? true : undefined),
      5000,
      () => 'the task never logged its run',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(runs()).toHaveLength(1);
  });

  it('first_win races two agents, takes the first result and cancels the loser (its handler sees the abort)', async () => {
    const env = getEnv();
    const [fast, slow] = env.workerIds as [string, string];
    const result = await client().reach({
      need: { operation: 'opinion' },
      input: { delays: { [fast]: 0, [slow]: 5000 } },
      mode: 'first_win',
      k: 2,
    });
    expect(result.ok && result.value.output).toBe(`opinion of ${fast}`);
    if (!result.ok) return;
    const loser = env.workers[1]!;
    await pollUntil(
      () => (loser.stdout.json().some((line) => line.aborted === result.value.request_id) ? true : undefined),
      5000,
      () => `the losing handler never saw its abort:\n${loser.stdout.tail()}`,
    );
  });

  it('all_must reports every failed target; synthesize merges through a synthesis agent', async () => {
    const env = getEnv();
    const all = await client().reach({
      need: { operation: 'probe_all', max_candidates: 4 },
      input: {},
      mode: 'all_must',
      k: 4,
    });
    expect(all.ok).toBe(false);
    if (all.ok) return;
    const failures = (all.error.data as { failures: Array<{ instance_id: string; failure: string }> })
      .failures;
    expect(failures.map((f) => [f.instance_id, f.failure]).sort()).toEqual(
      [
        [env.rogues['5xx'], 'http_5xx'],
        [env.rogues['429'], 'overloaded'],
      ].sort(),
    );
    const merged = await client().reach({
      need: { operation: 'opinion' },
      input: {},
      mode: 'synthesize',
      k: 2,
    });
    expect(merged.ok && merged.value.output).toBe(
      `merged(${env.workerIds
        .map((id) => `opinion of ${id}`)
        .sort()
        .join(' | ')})`,
    );
  });

  it('a failing high-priority agent loses traffic to lower-priority ones', async () => {
    const env = getEnv();
    const share = async () => {
      let first = 0;
      for (let i = 0; i < 200; i += 1) {
        const answer = await env.route({ operation: 'probe_rank' });
        if (answer.candidates[0]?.instance_id === env.rogues['5xx']) first += 1;
      }
      return first / 200;
    };
    const before = await share();
    expect(before).toBeGreaterThan(0.3);
    const reach = client({ retryBudget: { maxTokens: 1000 } });
    for (let i = 0; i < 100; i += 1) {
      const result = await reach.reach({ need: { operation: 'probe_rank' }, input: {} });
      expect(result.ok).toBe(true);
    }
    await reach.close();
    const after = await share();
    expect(after).toBeLessThan(before * 0.6);
    const stats = (await (await fetch(`${env.registry.url}/v1/routing/stats`)).json()) as {
      instances: Array<{ instance_id: string; failures: number; success_rate: number }>;
    };
    const rogue = stats.instances.find((i) => i.instance_id === env.rogues['5xx'])!;
    expect(rogue.failures).toBeGreaterThan(10);
    expect(rogue.success_rate).toBeLessThan(0.5);
  });

  it('ramps a newly registered instance from a small share to full over the warm-up', async () => {
    const env = getEnv();
    const { id, token } = await env.register('newcomer', ['warm_op']);
    // A different input_size each time: a new cache key, so the warm-up is computed afresh.
    const warmup = async (size: number) =>
      (await env.route({ operation: 'warm_op', constraints: { input_size: size } })).candidates[0]?.breakdown
        .warmup;
    // The registry learns of the registration through its store watch, a moment after the 201.
    const start = await pollUntil(
      () => warmup(1),
      5000,
      () => 'the newcomer never became routable',
    );
    expect(start).toBeLessThan(0.3);
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS / 2));
    const middle = (await warmup(2))!;
    expect(middle).toBeGreaterThan(start + 0.2);
    expect(middle).toBeLessThan(1);
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS / 2 + 200));
    expect(await warmup(3)).toBe(1);
    await fetch(`${env.registry.url}/v1/agents/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
  });

  it('reports a conflict, routes only its top agent, and keeps the daily report', async () => {
    const env = getEnv();
    const answer = await env.route({ operation: 'classify', max_candidates: 5 });
    expect(answer.candidates).toHaveLength(1);
    expect(answer.conflict).toEqual({ agents: ['classifier-a', 'classifier-b'], capability: 'classify' });
    const live = (await (await fetch(`${env.registry.url}/v1/conflicts`)).json()) as {
      conflicts: Array<{ agents: string[]; capability: string; since: string }>;
    };
    const conflict = live.conflicts.find((c) => c.capability === 'classify')!;
    expect(conflict.agents).toEqual(['classifier-a', 'classifier-b']);
    expect(Number.isNaN(Date.parse(conflict.since))).toBe(false);
    const daily = await pollUntil(
      async () => {
        const res = await fetch(`${env.registry.url}/v1/conflicts?report=daily`);
        return res.status === 200
          ? ((await res.json()) as { conflicts: Array<{ capability: string }> })
          : undefined;
      },
      10_000,
      () => 'no daily conflict report',
    );
    expect(daily.conflicts.map((c) => c.capability)).toContain('classify');
  });

  it('answers identical queries from the cache until a registration changes membership', async () => {
    const env = getEnv();
    // Two instances of one agent: two agents would conflict, and which one routes would turn on timing.
    const first = await env.register('cache-agent', ['cache_op'], 9);
    expect((await env.route({ operation: 'cache_op' })).cached).toBe(false);
    expect((await env.route({ operation: 'cache_op' })).cached).toBe(true);
    const second = await env.register('cache-agent', ['cache_op'], 10);
    const fresh = await pollUntil(
      async () => {
        const answer = await env.route({ operation: 'cache_op', max_candidates: 5 });
        return answer.candidates.some((c) => c.instance_id === second.id) ? answer : undefined;
      },
      5000,
      () => 'the new registration never showed up',
    );
    expect(fresh.cached).toBe(false);
    for (const { id, token } of [first, second]) {
      await fetch(`${env.registry.url}/v1/agents/${id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
    }
  });

  it('answers bad route queries and bad outcome reports with a 4xx and a code', async () => {
    const env = getEnv();
    const post = (path: string, body: string) =>
      fetch(`${env.registry.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const cases: Array<[string, string, number, string]> = [
      ['/v1/route', '{not json', 400, 'INVALID_JSON'],
      ['/v1/route', JSON.stringify({ operation: 'Bad Op' }), 400, 'VALIDATION_FAILED'],
      ['/v1/route', JSON.stringify({ operation: 'summarize', max_candidates: 0 }), 400, 'VALIDATION_FAILED'],
      ['/v1/outcomes', JSON.stringify({ outcomes: [] }), 400, 'VALIDATION_FAILED'],
      [
        '/v1/outcomes',
        JSON.stringify({ outcomes: [{ instance_id: 'x', request_id: 'r', ok: false, latency_ms: 1 }] }),
        400,
        'VALIDATION_FAILED',
      ],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await post(path, body);
      expect(res.status).toBe(status);
      expect(await res.json()).toMatchObject({ code });
    }
  });

  it('falls back to the registry’s DNS (SVCB) when the registry’s HTTP API is unreachable', async () => {
    const env = getEnv();
    const reach = client({
      registryUrl: `http://127.0.0.1:${await freePort()}`,
      dns: { server: `127.0.0.1:${env.registry.dnsPort}`, zone: 'agents.internal' },
    });
    const result = await reach.reach({ need: { operation: 'summarize' }, input: {} });
    expect(result.ok ? 'ok' : `${result.error.code}: ${result.error.message}`).toBe('ok');
    if (!result.ok) return;
    expect(result.value.route.source).toBe('dns');
    expect(env.workerIds).toContain(result.value.results[0]!.instance_id);
  });

  it('exposes the routing indicators and per-instance figures in Prometheus', async () => {
    const env = getEnv();
    await Promise.all(clients.map((c) => c.close()));
    const text = await (await fetch(`${env.registry.url}/metrics`)).text();
    expect(text).toMatch(/reach_route_queries_total\{cache="hit"\} [1-9]/);
    expect(text).toMatch(/reach_calls_total\{served_by="first_candidate"\} [1-9]/);
    expect(text).toMatch(/reach_calls_total\{served_by="fallback"\} [1-9]/);
    expect(text).toMatch(/reach_call_retries_bucket\{le="1"\} [1-9]/);
    for (const [mode, result] of [
      ['connect', 'connect'],
      ['noack', 'ack_timeout'],
      ['5xx', 'http_5xx'],
      ['429', 'overloaded'],
      ['silent', 'execution_timeout'],
    ] as const) {
      expect(text).toContain(
        `instance_id="${env.rogues[mode]}",agent_name="rogue-${mode}",result="${result}"}`,
      );
    }
    expect(text).toMatch(
      new RegExp(`reach_instance_latency_seconds_count\\{instance_id="${env.workerIds[0]}"`),
    );
    expect(text).toMatch(new RegExp(`reach_instance_success_rate\\{instance_id="${env.workerIds[0]}"`));
  });
});
