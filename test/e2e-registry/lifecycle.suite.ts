import { fileURLToPath } from 'node:url';
import type { InstanceState } from '@agent-reach/sdk/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { type AgentProcess, SAMPLE_AGENTS } from '../harness/agent-process.js';
import { goneAfter, invoke, watchStates } from './agent-checks.js';
import { INTERVAL_MS, TIMEOUT_MS } from './e2e-config.js';
import type { E2eEnv } from './e2e-env.js';

const BUSY_AGENT = fileURLToPath(new URL('../../apps/agent-sdk/src/testing/busy-agent.ts', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SDK agent processes: listed and published; SIGKILL removes them by lease, SIGTERM at once; a busy handler starves nothing. */
export function lifecycleSuite(env: () => E2eEnv): void {
  describe('SDK agent processes', () => {
    const agents: Partial<Record<'summarizer' | 'translator' | 'busy', AgentProcess>> = {};
    const started = (name: keyof typeof agents): AgentProcess => {
      const agent = agents[name];
      if (!agent) throw new Error(`agent ${name} was not started`);
      return agent;
    };
    afterAll(() => env().stopAgents());

    it('a sample agent appears in GET /v1/agents, published in DNS format; SIGKILL removes every key within heartbeat_timeout + one interval', async () => {
      // All three start together: process start-up dominates on a busy machine.
      agents.summarizer = env().spawnAgent(SAMPLE_AGENTS['summarizer-v2']);
      agents.translator = env().spawnAgent(SAMPLE_AGENTS.translator);
      agents.busy = env().spawnAgent(BUSY_AGENT);
      const { ready, view: listed } = await agents.summarizer.registered();
      const port = Number(new URL(ready.url).port);
      expect(listed).toMatchObject({
        agent_name: 'summarizer-v2',
        capabilities: ['summarize'],
        endpoint: { host: '127.0.0.1', port },
        card_sha256: ready.cardSha256,
      });
      // On a loaded machine the SDK may have had to re-register: follow the agent, not the first id.
      const view = await agents.summarizer.heartbeating();
      const id = view.instance_id;
      await env().store.expectPublished(
        { instanceId: id, host: '127.0.0.1', port, capabilities: ['summarize'] },
        env().registry.url,
      );

      const killedAt = performance.now();
      const killed = agents.summarizer.kill();
      const gone = goneAfter(env(), id, killedAt, TIMEOUT_MS + INTERVAL_MS + 5_000);
      const states = await watchStates(env(), id, gone);
      expect((await killed).signal).toBe('SIGKILL');
      expect(await gone).toBeLessThanOrEqual(TIMEOUT_MS + INTERVAL_MS);
      // A missed heartbeat first makes it suspect; the expired lease then makes it unavailable.
      expect(states).toContain('suspect');
      expect((await env().api.instance(id))!.state).toBe('unavailable');
    });

    it('SIGTERM deregisters: every key is gone at once, well under one interval', async () => {
      const translator = started('translator');
      await translator.ready();
      const view = await translator.heartbeating();
      const id = view.instance_id;
      await env().store.expectPublished(
        { instanceId: id, host: '127.0.0.1', port: view.endpoint.port, capabilities: ['translate'] },
        env().registry.url,
      );
      const termAt = performance.now();
      const exited = translator.term();
      const took = await goneAfter(env(), id, termAt, 5_000);
      expect(took).toBeLessThan(INTERVAL_MS / 2);
      expect(await exited).toEqual({ code: 0, signal: null });
      expect((await env().api.instance(id))!.state).toBe('deregistered');
      expect(await env().store.keysOf(id, env().registry.url)).toEqual([]);
    });

    it('a CPU-bound handler busy for 3 heartbeat intervals does not get its agent marked suspect', async () => {
      const { api } = env();
      const busy = started('busy');
      const ready = await busy.ready();
      const id = (await busy.heartbeating()).instance_id;
      const seqBefore = (await api.instance(id))!.last_seq;

      const busyMs = 3 * INTERVAL_MS;
      let acked: () => void = () => undefined;
      const ack = new Promise<void>((resolve) => {
        acked = resolve;
      });
      const sentAt = performance.now();
      const answer = invoke(ready.url, { busy_ms: busyMs }, () => acked());
      let finished = false;
      void answer.finally(() => {
        finished = true;
      });
      // Mid-spin the agent's own HTTP server cannot answer: the main thread really is blocked.
      const probe = ack.then(async () => {
        await sleep(300);
        if (finished) return 'finished';
        return fetch(`${ready.url}/health`, { signal: AbortSignal.timeout(1_000) }).then(
          () => 'answered',
          () => 'blocked',
        );
      });
      const states: InstanceState[] = [];
      while (!finished) {
        states.push((await api.instance(id))!.state);
        await sleep(100);
      }
      const lines = await answer;
      expect(lines.map((line) => line.type)).toEqual(['ack', 'result']);
      expect(lines[1]!.output).toEqual({ spun_ms: busyMs });
      expect(performance.now() - sentAt).toBeGreaterThanOrEqual(busyMs);
      expect(await probe).toBe('blocked');
      expect(states.length).toBeGreaterThan(10);
      expect(new Set(states)).toEqual(new Set(['healthy']));
      // The worker thread kept beating through the spin: about one heartbeat per interval.
      const after = (await api.instance(id))!;
      expect(after.state).toBe('healthy');
      expect(after.last_seq - seqBefore).toBeGreaterThanOrEqual(busyMs / INTERVAL_MS - 1);
    });
  });
}
