import { createHash } from 'node:crypto';
import type { InstanceView } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentProcess, SAMPLE_AGENTS } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { INTERVAL_MS, registryConfig, TOKENS } from './e2e-config.js';
import type { E2eEnv } from './e2e-env.js';

/** Leases that outlive a restart of the registry process (which takes seconds under tsx). */
const RESTART_TIMEOUT_MS = 20_000;
// One interval, plus room for the agent's request and a busy machine.
const CARRY_ON_LIMIT_MS = INTERVAL_MS + 1_000;

/** A summarizer-v2 declaration change made over HTTP, so the history holds a change reason. */
function changedSummarizer() {
  return {
    declaration: {
      agent_name: 'summarizer-v2',
      domain: 'text_processing',
      version: '2',
      change_reason: 'e2e: longer summaries',
      capabilities: { summarize: { input: ['text', 'max_length'], output: ['summary'] } },
      priority: 80,
      idempotent: true,
    },
    endpoint: { host: '127.0.0.1', port: 9301 },
    card_sha256: createHash('sha256').update('summarizer-v2 card, version 2').digest('base64url'),
  };
}

/** Restarting the registry loses no live registration and no declaration history; agents carry on by themselves. */
export function restartSuite(env: () => E2eEnv): void {
  describe('registry restarts', () => {
    let agents: Array<{ agent: AgentProcess; id: string }> = [];

    beforeAll(async () => {
      const { registry, store, api } = env();
      await registry.stop();
      await registry.restart(registryConfig(store.storage, RESTART_TIMEOUT_MS));
      const spawned = [SAMPLE_AGENTS['summarizer-v2'], SAMPLE_AGENTS.translator].map((script) =>
        env().spawnAgent(script),
      );
      agents = await Promise.all(
        spawned.map(async (agent) => {
          await agent.registered();
          return { agent, id: (await agent.heartbeating()).instance_id };
        }),
      );
      const change = await api.send('POST', '/v1/agents', changedSummarizer(), {
        authorization: `Bearer ${TOKENS.agents}`,
      });
      expect(change.status, JSON.stringify(change.body)).toBe(201);
      const lease = { authorization: `Bearer ${change.body.lease_token as string}` };
      expect(
        (await api.send('DELETE', `/v1/agents/${change.body.instance_id as string}`, undefined, lease))
          .status,
      ).toBe(200);
    });
    afterAll(() => env().stopAgents());

    const scenario = (how: 'SIGTERM' | 'SIGKILL') => async () => {
      const { registry, api, store } = env();
      const history = await api.send('GET', '/v1/declarations/summarizer-v2');
      expect(history.status).toBe(200);
      const reasons = (history.body.history as Array<{ change_reason: string | null }>).map(
        (e) => e.change_reason,
      );
      expect(reasons).toContain('e2e: longer summaries');
      const before = new Map((await api.instances()).map((view) => [view.instance_id, view]));
      const ids = agents.map(({ id }) => id);
      const reRegistrations = () =>
        agents.map(({ agent }) => agent.stderr.lines.filter((l) => l.includes('re-registered')).length);
      const reRegisteredBefore = reRegistrations();
      for (const id of ids) expect(before.get(id)?.state, id).toBe('healthy');

      const exit = how === 'SIGTERM' ? await registry.stop() : await registry.kill();
      expect(exit).toEqual(how === 'SIGTERM' ? { code: 0, signal: null } : { code: null, signal: 'SIGKILL' });
      await registry.restart();
      const readyAt = performance.now();

      // Every live registration is back the moment the registry is ready, under the same id.
      const listed = new Map((await api.instances()).map((view) => [view.instance_id, view]));
      for (const id of ids) {
        expect(listed.has(id), id).toBe(true);
        expect((await store.keysOf(id, registry.url)).length, id).toBeGreaterThan(0);
      }
      // The agents' next heartbeats land within about one interval, without re-registering.
      const carriedOn = await pollUntil(
        async () => {
          const views = await Promise.all(ids.map((id) => api.instance(id)));
          const fresh = views.every(
            (view, i) =>
              view?.state === 'healthy' &&
              view.last_heartbeat_at !== null &&
              view.last_seq > before.get(ids[i]!)!.last_seq,
          );
          return fresh ? performance.now() - readyAt : undefined;
        },
        10_000,
        () => 'the agents did not heartbeat after the restart',
        50,
      );
      expect(carriedOn).toBeLessThanOrEqual(CARRY_ON_LIMIT_MS);
      for (const { agent, id } of agents) expect((await agent.listed())?.instance_id).toBe(id);
      expect(reRegistrations()).toEqual(reRegisteredBefore);
      expect((await api.send('GET', '/v1/declarations/summarizer-v2')).body).toEqual(history.body);
      const views: InstanceView[] = await api.instances();
      expect(views.map((view) => view.instance_id).sort()).toEqual([...before.keys()].sort());
    };

    it(
      'SIGTERM and start again: every live registration and the declaration history stay; agents carry on',
      scenario('SIGTERM'),
    );
    it(
      'SIGKILL and start again: every live registration and the declaration history stay; agents carry on',
      scenario('SIGKILL'),
    );
  });
}
