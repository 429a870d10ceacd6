import type { InstanceState } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { INTERVAL_MS, TIMEOUT_MS } from './e2e-config.js';
import type { E2eEnv } from './e2e-env.js';
import { registerOverHttp } from './http-registration.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sequence numbers: a stale heartbeat is refused and extends nothing. */
export function heartbeatSuite(env: () => E2eEnv): void {
  describe('heartbeats', () => {
    it('refuses a replayed or older-seq heartbeat (409 STALE_HEARTBEAT) and lets the lease run out on schedule', async () => {
      const { api, store, registry } = env();
      const { id, lease } = await registerOverHttp(env(), 'stale-agent', 9001);
      let lastSentAt = 0;
      for (const seq of [1, 2, 3]) {
        lastSentAt = performance.now();
        expect((await api.send('POST', `/v1/agents/${id}/heartbeat`, { seq }, lease)).status).toBe(200);
      }
      const states = new Set<InstanceState>();
      let goneAt: number | undefined;
      for (let round = 0; goneAt === undefined; round++) {
        expect(performance.now() - lastSentAt).toBeLessThan(TIMEOUT_MS + INTERVAL_MS + 2_000);
        // Alternate a replay of the last seq and an older one.
        const seq = round % 2 === 0 ? 3 : 1;
        const reply = await api.send('POST', `/v1/agents/${id}/heartbeat`, { seq }, lease);
        if (reply.status === 410) {
          goneAt = performance.now();
          expect(reply.body.code).toBe('UNKNOWN_INSTANCE');
          break;
        }
        expect([reply.status, reply.body.code]).toEqual([409, 'STALE_HEARTBEAT']);
        expect(reply.body.message).toMatch(/not newer/);
        states.add((await api.instance(id))!.state);
        await sleep(200);
      }
      const lived = goneAt! - lastSentAt;
      // Expired on the lease of the last accepted heartbeat: the replays extended nothing.
      expect(lived).toBeLessThanOrEqual(TIMEOUT_MS + INTERVAL_MS);
      expect(lived).toBeGreaterThan(TIMEOUT_MS - 250);
      // A stale heartbeat does not even count as a sign of life.
      expect(states).toContain('suspect');
      expect(await store.keysOf(id, registry.url)).toEqual([]);
      expect((await api.instance(id))!.state).toBe('unavailable');
      // Not even a newer seq revives a removed instance.
      const late = await api.send('POST', `/v1/agents/${id}/heartbeat`, { seq: 4 }, lease);
      expect([late.status, late.body.code]).toEqual([410, 'UNKNOWN_INSTANCE']);
      expect((await api.instances()).map((view) => view.instance_id)).not.toContain(id);
    });
  });
}
