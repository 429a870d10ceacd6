import { randomUUID } from 'node:crypto';
import { ReachClient } from '@agent-reach/sdk/client';
import { A2A_VERSION, sendMessageParams } from '@agent-reach/sdk/protocol';
import { type ReadyChild, spawnReady } from './lib/ready-child.js';
import { type RegistryProcess, startRegistryProcess } from './lib/registry-process.js';
import { type Figure, printFigures } from './lib/report.js';
import { quantile, summarize } from './lib/stats.js';

const CALLS = Number(process.env.BENCH_REACH_CALLS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const NEED = { operation: 'bench_echo', domain: 'bench' } as const;

async function timed(fn: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** The same call as a plain `fetch` of A2A `SendStreamingMessage`, SSE body read to the end: the floor. */
function plainFetch(agentUrl: string): () => Promise<void> {
  return async () => {
    const params = sendMessageParams({
      request_id: randomUUID(),
      capability: 'bench_echo',
      input: { text: 'hi' },
    });
    const res = await fetch(`${agentUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'a2a-version': A2A_VERSION,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params }),
    });
    const text = await res.text();
    if (res.status !== 200 || !text.includes('TASK_STATE_COMPLETED'))
      throw new Error(`a2a ${res.status}: ${text}`);
  };
}

function reachOnce(client: ReachClient): () => Promise<void> {
  return async () => {
    const result = await client.reach({ need: NEED, input: { text: 'hi' } });
    if (!result.ok) throw new Error(`reach failed: ${result.error.code}: ${result.error.message}`);
    if (result.value.attempts.length !== 1)
      throw new Error('reach needed a fallback; the agent is not instant');
  };
}

/** Calls completed per second by `CONCURRENCY` loops calling `once` for `SECONDS`. */
async function callsPerSecond(once: () => Promise<void>): Promise<number> {
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await once();
        done++;
      }
    }),
  );
  return done / SECONDS;
}

const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/**
 * Issue 15's benchmark: what `reach()` adds over a plain fetch of the same A2A call, and calls/s through
 * ReachClient beside plain fetch at the same concurrency, against one instant SDK agent. (The NDJSON
 * `/v1/invoke` it was compared with in the same run is gone; docs/benchmarks.md keeps that run.)
 */
export async function benchCalling(): Promise<Figure[]> {
  const registry: RegistryProcess = await startRegistryProcess({ type: 'embedded' });
  let agent: ReadyChild<{ url: string }> | undefined;
  const client = new ReachClient({ registryUrl: registry.url, outcomes: false });
  const figures: Figure[] = [];
  try {
    agent = await spawnReady<{ url: string }>('bench/lib/instant-agent.ts', {
      REACH_CONTROL_PLANE_URL: registry.url,
    });
    const kinds = [plainFetch(agent.ready.url), reachOnce(client)];
    const samples: number[][] = kinds.map(() => []);
    const warmup = 200;
    for (let i = 0; i < warmup + CALLS; i++) {
      for (let j = 0; j < kinds.length; j++) {
        const k = (i + j) % kinds.length;
        const ms = await timed(kinds[k] as () => Promise<void>);
        if (i >= warmup) samples[k]?.push(ms);
      }
    }
    const fetched = summarize(samples[0] ?? []);
    const reached = summarize(samples[1] ?? []);
    const rates = { fetch: [] as number[], reach: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['reach', 'fetch'] as const) : (['fetch', 'reach'] as const);
      for (const kind of order)
        rates[kind].push(await callsPerSecond(kinds[kind === 'fetch' ? 0 : 1] as () => Promise<void>));
    }
    const each = (all: number[]) => all.map((v) => Math.round(v).toLocaleString('en-US')).join(' / ');
    figures.push(
      {
        name: `reach() − fetch p50, A2A streaming (JSON-RPC SSE), n=${fetched.n}`,
        value: reached.p50 - fetched.p50,
        unit: 'ms',
        reference: { name: 'fetch SendStreamingMessage p50', value: fetched.p50 },
        target: { op: '<=', value: 1 },
      },
      {
        name: 'reach() − fetch p50: p99',
        value: reached.p99 - fetched.p50,
        unit: 'ms',
        reference: { name: 'fetch p99', value: fetched.p99 },
      },
      {
        name: `calls/s through ReachClient, ${CONCURRENCY} concurrent, median of ${ROUNDS} × ${SECONDS} s: ${each(rates.reach)}`,
        value: median(rates.reach),
        unit: 'calls/s',
        reference: { name: `plain fetch (${each(rates.fetch)})`, value: median(rates.fetch) },
      },
    );
  } finally {
    await client.close();
    await agent?.stop();
    await registry.stop();
  }
  printFigures('Calling (issue 15): A2A streaming through ReachClient, one instant SDK agent', figures);
  return figures;
}
