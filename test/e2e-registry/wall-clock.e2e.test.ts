import type { InstanceState } from '@agent-reach/sdk/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE_AGENTS } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { WallClockShift } from '../harness/wall-clock.js';
import { goneAfter } from './agent-checks.js';
import { INTERVAL_MS, TIMEOUT_MS } from './e2e-config.js';
import { type E2eEnv, useE2eEnv } from './e2e-env.js';
import { registerOverHttp } from './http-registration.js';
import { STORES } from './stores.js';

const HOUR_S = 3600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The registry's wall clock as it shows it (the HTTP `Date` header), minus ours, in seconds. */
async function registryClockOffset(env: E2eEnv): Promise<number> {
  const res = await fetch(`${env.registry.url}/healthz`);
  await res.body?.cancel();
  return (Date.parse(res.headers.get('date')!) - Date.now()) / 1000;
}

/** Moves the wall clock of the registry and the agent, and waits until the registry shows it. */
async function jump(env: E2eEnv, shift: WallClockShift, seconds: number): Promise<void> {
  shift.set(seconds);
  await pollUntil(
    async () => (Math.abs((await registryClockOffset(env)) - seconds) < 5 ? true : undefined),
    5_000,
    () => `the registry's wall clock did not move to ${seconds} s`,
  );
}

/**
 * What is published for an instance, without what the leader's weight publication (every 5 s, from
 * load and warm-up) moves: the weight key itself and the SRV weight / SVCB priority figures; nor the
 * liveness fact its heartbeats write (registry-to-registry state, not a publication).
 */
function publishedShape(keys: string[]): string[] {
  return keys
    .filter((key) => !key.startsWith('/reach/weights/') && !key.startsWith('/reach/liveness/'))
    .map((line) => line.replace(/(\sSRV\s+)\d+ \d+ /, '$1').replace(/(\sSVCB\s+)\d+ /, '$1'));
}

/** The warm-up factor routing gives the instance now (`POST /v1/route`'s score breakdown). */
async function warmupFactor(env: E2eEnv, instanceId: string): Promise<number> {
  const reply = await env.api.send('POST', '/v1/route', { operation: 'summarize', max_candidates: 20 });
  expect(reply.status).toBe(200);
  const candidates = reply.body.candidates as Array<{ instance_id: string; breakdown: { warmup: number } }>;
  return candidates.find((candidate) => candidate.instance_id === instanceId)!.breakdown.warmup;
}

/** Every state the instance is listed in over `ms`, polled every 100 ms. */
async function statesOver(env: E2eEnv, instanceId: string, ms: number): Promise<Set<InstanceState | 'gone'>> {
  const seen = new Set<InstanceState | 'gone'>();
  for (const end = performance.now() + ms; performance.now() < end; ) {
    seen.add((await env.api.instance(instanceId))?.state ?? 'gone');
    await sleep(100);
  }
  return seen;
}

// libfaketime moves the wall clock of the registry and agent processes (not their monotonic clock),
// as an NTP step or an operator would. Liveness runs on the monotonic clock, so nothing may change.
describe.each(STORES)('a wall-clock jump on the $name store', ({ open }) => {
  const shift = new WallClockShift();
  const env = useE2eEnv(open, shift.env());
  afterAll(async () => {
    await env().stopAgents();
    shift.dispose();
  });

  it('an hour forward, then two back: agents stay healthy and published, a silent lease runs out on schedule', async () => {
    const agent = env().spawnAgent(SAMPLE_AGENTS['summarizer-v2'], { env: shift.env() });
    await agent.registered();
    const { instance_id: id } = await agent.heartbeating();
    const published = publishedShape(await env().store.keysOf(id, env().registry.url));
    expect(published.length).toBeGreaterThan(0);

    for (const offset of [HOUR_S, -HOUR_S]) {
      await jump(env(), shift, offset);
      const seqBefore = (await env().api.instance(id))!.last_seq;
      // A silent instance registered now expires on its lease, whatever the wall clock says.
      const silent = await registerOverHttp(env(), `silent${offset > 0 ? 'ahead' : 'behind'}`, 9100);
      const registeredAt = performance.now();
      // Three heartbeat intervals on the moved clock: never suspect, never gone.
      expect(await statesOver(env(), id, 3 * INTERVAL_MS)).toEqual(new Set(['healthy']));
      expect(publishedShape(await env().store.keysOf(id, env().registry.url))).toEqual(published);
      // Still warming up (5 min from 10 %): the jump did not age it.
      expect(await warmupFactor(env(), id)).toBeLessThan(0.2);
      // Its heartbeats went on being accepted (one per interval).
      expect((await env().api.instance(id))!.last_seq).toBeGreaterThanOrEqual(seqBefore + 2);
      const lived = await goneAfter(env(), silent.id, registeredAt, TIMEOUT_MS + INTERVAL_MS + 5_000);
      expect(lived).toBeGreaterThan(TIMEOUT_MS - 250);
      expect(lived).toBeLessThanOrEqual(TIMEOUT_MS + INTERVAL_MS + 250);
    }
    // Back to the real time: still the same registration, still heartbeating.
    await jump(env(), shift, 0);
    expect(await statesOver(env(), id, 2 * INTERVAL_MS)).toEqual(new Set(['healthy']));
    expect((await agent.heartbeating()).instance_id).toBe(id);
  });
});
