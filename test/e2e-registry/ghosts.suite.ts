import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentProcess } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { INTERVAL_MS, PROBE_TIMEOUT_MS, STORM_HOLD_MS, TIMEOUT_MS } from './e2e-config.js';
import type { E2eEnv } from './e2e-env.js';
import { metricValue } from './registry-api.js';

const BUSY_AGENT = fileURLToPath(new URL('../../apps/agent-sdk/src/testing/busy-agent.ts', import.meta.url));
const KILLED = 3;
const STOPPED = 3;
const TALKING = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Storm protection verifies before it holds: of a fleet whose larger part falls silent at once, the
 * SIGKILLed agents (connection refused) leave DNS at once; the SIGSTOPped ones (nobody answers) are held.
 */
export function ghostsSuite(env: () => E2eEnv): void {
  describe('no ghosts in a storm', () => {
    const stopped: AgentProcess[] = [];
    afterAll(async () => {
      for (const agent of stopped) agent.child.kill('SIGCONT');
      await env().stopAgents();
    });

    it(`evicts ${KILLED} SIGKILLed agents within an interval plus the probe time, holds ${STOPPED} SIGSTOPped ones`, async () => {
      const { api, store, registry } = env();
      await pollUntil(
        async () => ((await api.instances()).length === 0 ? true : undefined),
        TIMEOUT_MS + INTERVAL_MS + 5_000,
        () => 'the instance list never emptied',
        100,
      );
      const agents = Array.from({ length: KILLED + STOPPED + TALKING }, () => env().spawnAgent(BUSY_AGENT));
      const ids = (await Promise.all(agents.map((agent) => agent.registered()))).map(
        ({ ready }) => ready.instanceId,
      );
      await Promise.all(agents.map((agent) => agent.heartbeating()));
      // Agents starting on a busy machine may be slow to send their first heartbeats (a storm of its
      // own): start from a quiet registry.
      await pollUntil(
        async () =>
          metricValue(await api.metrics(), 'reach_registry_storm_active') === 0 ? true : undefined,
        STORM_HOLD_MS + 5_000,
        () => 'storm protection never went quiet',
        100,
      );
      const eventsBefore = metricValue(await api.metrics(), 'reach_registry_storm_events_total') ?? 0;
      const logsBefore = registry.logs().length;
      const killed = ids.slice(0, KILLED);
      const frozen = ids.slice(KILLED, KILLED + STOPPED);
      const talking = ids.slice(KILLED + STOPPED);

      const silencedAt = performance.now();
      for (const agent of agents.slice(0, KILLED)) agent.child.kill('SIGKILL');
      for (const agent of agents.slice(KILLED, KILLED + STOPPED)) {
        agent.child.kill('SIGSTOP');
        stopped.push(agent);
      }

      // Every killed instance is gone from the store and the zone within one interval after it went
      // silent (interval + half an interval of grace), plus the sweep tick and the probe.
      const goneAt = new Map<string, number>();
      await pollUntil(
        async () => {
          for (const id of killed)
            if (!goneAt.has(id) && (await store.keysOf(id, registry.url)).length === 0)
              goneAt.set(id, performance.now());
          return goneAt.size === KILLED ? true : undefined;
        },
        STORM_HOLD_MS,
        () => `killed instances still published: ${killed.filter((id) => !goneAt.has(id)).join(', ')}`,
        50,
      );
      const slowest = Math.max(...goneAt.values()) - silencedAt;
      expect(slowest).toBeLessThan(2.5 * INTERVAL_MS + PROBE_TIMEOUT_MS + 1_000);
      // Storm protection did start: it is what would otherwise have held them for the whole hold.
      expect(metricValue(await api.metrics(), 'reach_registry_storm_events_total')).toBe(eventsBefore + 1);
      const probeEvicted = registry
        .logs()
        .slice(logsBefore)
        .filter((line) => line.event === 'storm_probe_evicted')
        .flatMap((line) => line.evicted as string[]);
      expect(probeEvicted.sort()).toEqual([...killed].sort());

      // Past their own lease time the frozen ones are still there, held as suspect; the rest are healthy.
      await sleep(Math.max(0, silencedAt + TIMEOUT_MS + INTERVAL_MS - performance.now()));
      const views = new Map((await api.instances()).map((view) => [view.instance_id, view]));
      for (const id of frozen) {
        expect(views.get(id)?.state, id).toBe('suspect');
        expect((await store.keysOf(id, registry.url)).length, id).toBeGreaterThan(0);
      }
      for (const id of talking) expect(views.get(id)?.state, id).toBe('healthy');
      for (const id of killed) expect(views.get(id)?.state ?? 'gone', id).not.toMatch(/healthy|suspect/);

      // Woken up, they heartbeat again under their ids.
      for (const agent of stopped.splice(0)) agent.child.kill('SIGCONT');
      await pollUntil(
        async () => {
          const live = new Map((await api.instances()).map((view) => [view.instance_id, view.state]));
          return frozen.every((id) => live.get(id) === 'healthy') ? true : undefined;
        },
        10_000,
        () => 'the woken agents never became healthy again',
        100,
      );
    });
  });
}
