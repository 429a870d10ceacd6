import { randomUUID } from 'node:crypto';
import { ReachClient } from '@agent-reach/sdk/client';
import { A2A_JSONRPC_PATH, A2A_VERSION, sendMessageParams } from '@agent-reach/sdk/protocol';
import { type Summary, summarize } from './stats.js';

/** Latencies (ms) of the ways to make the same call, measured interleaved. */
export interface OverheadSamples {
  /** `fetch` of the same A2A `SendStreamingMessage` straight to the agent, SSE body read to the end. */
  fetch: Summary;
  /**
   * `client.reach()` as configured by default: its own route cache (1 s) answers most calls, one call
   * a second asks the registry (`POST /v1/route`, `max_candidates: 20`).
   */
  reachDefault: Summary;
  /** `client.reach()` with `routeCache: false`: every call asks the registry first. */
  reachViaRegistry: Summary;
  /** `fetch` POST /v1/route to the registry alone. */
  route: Summary;
}

const NEED = { operation: 'bench_echo', domain: 'bench' } as const;

async function timed(fn: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/**
 * `calls` rounds (after `warmup` unrecorded ones), each making the four calls in a rotating order so
 * that drift in the machine's load falls on all of them alike.
 */
export async function measureReachOverhead(
  registryUrl: string,
  agentUrl: string,
  calls: number,
  warmup = 200,
): Promise<OverheadSamples> {
  const byDefault = new ReachClient({ registryUrl });
  const viaRegistry = new ReachClient({ registryUrl, routeCache: false });
  const reach = (client: ReachClient) => async () => {
    const result = await client.reach({ need: NEED, input: { text: 'hi' } });
    if (!result.ok) throw new Error(`reach failed: ${result.error.code}: ${result.error.message}`);
    if (result.value.attempts.length !== 1)
      throw new Error('reach needed a fallback; the agent is not instant');
  };
  const plainFetch = async () => {
    const params = sendMessageParams({
      request_id: randomUUID(),
      capability: 'bench_echo',
      input: { text: 'hi' },
    });
    const res = await fetch(`${agentUrl}${A2A_JSONRPC_PATH}`, {
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
  const route = async () => {
    const res = await fetch(`${registryUrl}/v1/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...NEED, max_candidates: 3 }),
    });
    if (!res.ok) throw new Error(`route ${res.status}`);
    await res.arrayBuffer();
  };
  const kinds = [plainFetch, reach(byDefault), reach(viaRegistry), route];
  const samples: number[][] = kinds.map(() => []);
  try {
    for (let i = 0; i < warmup + calls; i++) {
      for (let j = 0; j < kinds.length; j++) {
        const k = (i + j) % kinds.length;
        const ms = await timed(kinds[k]!);
        if (i >= warmup) samples[k]!.push(ms);
      }
    }
  } finally {
    await byDefault.close();
    await viaRegistry.close();
  }
  return {
    fetch: summarize(samples[0]!),
    reachDefault: summarize(samples[1]!),
    reachViaRegistry: summarize(samples[2]!),
    route: summarize(samples[3]!),
  };
}
