import { createServer, type Server, type Socket } from 'node:net';
import type { InstanceView } from '@agent-reach/sdk/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../harness/child-output.js';
import { INTERVAL_MS, STORM, STORM_HOLD_MS, TIMEOUT_MS } from './e2e-config.js';
import type { E2eEnv } from './e2e-env.js';
import { registerOverHttp } from './http-registration.js';
import { metricValue } from './registry-api.js';

const TOTAL = 10;
const SILENCED = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Heartbeats a set of instances from the test every 250 ms until told to stop, each with its own seq. */
class HeartbeatPump {
  private readonly seqs = new Map<string, number>();
  private readonly beating = new Map<string, Record<string, string>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly env: E2eEnv) {
    this.timer = setInterval(() => this.round(), 250);
  }

  add(id: string, lease: Record<string, string>): void {
    this.beating.set(id, lease);
  }

  /** Stops heartbeating these instances, all in the same moment. */
  silence(ids: string[]): void {
    for (const id of ids) this.beating.delete(id);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private round(): void {
    for (const [id, lease] of this.beating) {
      const seq = (this.seqs.get(id) ?? 0) + 1;
      this.seqs.set(id, seq);
      void this.env.api.send('POST', `/v1/agents/${id}/heartbeat`, { seq }, lease).catch(() => undefined);
    }
  }
}

const byId = (views: InstanceView[]) => new Map(views.map((view) => [view.instance_id, view]));

/** 40 % of the instances going silent at once is a storm: they are held (suspect, listed), not removed en masse. */
export function stormSuite(env: () => E2eEnv): void {
  describe('storm protection', () => {
    let pump: HeartbeatPump | undefined;
    const registered: Array<{ id: string; lease: Record<string, string> }> = [];
    // Where the silenced instances "live": it accepts connections and never answers, like a paused
    // process, so the leader's probe cannot prove them dead and storm protection holds them.
    const frozenSockets = new Set<Socket>();
    const frozen: Server = createServer((socket) => {
      frozenSockets.add(socket);
      socket.on('error', () => undefined);
    });
    afterAll(async () => {
      for (const socket of frozenSockets) socket.destroy();
      await new Promise<void>((resolve) => frozen.close(() => resolve()));
      pump?.stop();
      for (const { id, lease } of registered)
        await env().api.send('DELETE', `/v1/agents/${id}`, undefined, lease);
    });

    it('holds 4 of 10 instances that go silent within one interval beyond heartbeat_timeout, says so in /metrics and the log, and evicts them later at the capped rate', async () => {
      const { api, store, registry } = env();
      // Leftovers of earlier scenarios would change the share that goes silent.
      await pollUntil(
        async () => ((await api.instances()).length === 0 ? true : undefined),
        TIMEOUT_MS + INTERVAL_MS + 5_000,
        () => 'the instance list never emptied',
        100,
      );
      const metricsBefore = await api.metrics();
      const eventsBefore = metricValue(metricsBefore, 'reach_registry_storm_events_total') ?? 0;
      const evictionsBefore = metricValue(metricsBefore, 'reach_registry_evictions_total') ?? 0;
      const logsBefore = registry.logs().length;
      await new Promise<void>((resolve) => frozen.listen(0, '127.0.0.1', resolve));
      const frozenPort = (frozen.address() as { port: number }).port;
      pump = new HeartbeatPump(env());
      for (let i = 0; i < TOTAL; i++) {
        const port = i < SILENCED ? frozenPort : 9200 + i;
        const instance = await registerOverHttp(env(), `storm-agent-${i}`, port);
        registered.push(instance);
        pump.add(instance.id, instance.lease);
      }
      await pollUntil(
        async () => {
          const views = await api.instances();
          const ready = views.filter((view) => view.state === 'healthy' && view.last_seq >= 2);
          return ready.length === TOTAL ? true : undefined;
        },
        10_000,
        () => 'not every instance became healthy',
        100,
      );

      const silent = registered.slice(0, SILENCED).map((instance) => instance.id);
      const talking = registered.slice(SILENCED).map((instance) => instance.id);
      pump.silence(silent);
      const silencedAt = performance.now();

      await pollUntil(
        async () =>
          (metricValue(await api.metrics(), 'reach_registry_storm_events_total') ?? 0) > eventsBefore ||
          undefined,
        2 * INTERVAL_MS + 2_000,
        () => 'storm protection never started',
        100,
      );
      // Past heartbeat_timeout plus one interval, when their leases would long have run out.
      await sleep(Math.max(0, silencedAt + TIMEOUT_MS + INTERVAL_MS - performance.now()));
      const views = byId(await api.instances());
      expect(views.size).toBe(TOTAL);
      for (const id of silent) {
        expect(views.get(id)?.state, id).toBe('suspect');
        expect((await store.keysOf(id, registry.url)).length, id).toBeGreaterThan(0);
      }
      for (const id of talking) expect(views.get(id)?.state, id).toBe('healthy');
      const metrics = await api.metrics();
      expect(metricValue(metrics, 'reach_registry_storm_events_total')).toBe(eventsBefore + 1);
      expect(metricValue(metrics, 'reach_registry_storm_active')).toBe(1);
      expect(metricValue(metrics, 'reach_registry_storm_held_instances')).toBe(SILENCED);
      const started = registry
        .logs()
        .slice(logsBefore)
        .filter((line) => line.event === 'storm_started');
      expect(started).toHaveLength(1);
      // It starts as soon as the silent share reaches the threshold: the silenced instances' last
      // heartbeats fall at different points of an interval, so that can be before the last of them.
      expect(started[0]).toMatchObject({ total: TOTAL, level: 40 });
      const atStart = started[0]!.silent as number;
      expect(atStart).toBeGreaterThanOrEqual(Math.ceil(STORM.threshold * TOTAL));
      expect(atStart).toBeLessThanOrEqual(SILENCED);
      expect(started[0]!.held).toBe(atStart);

      // After the hold they go, but no more than two per interval.
      const goneAt = new Map<string, number>();
      await pollUntil(
        async () => {
          const live = byId(await api.instances());
          for (const id of silent) if (!live.has(id) && !goneAt.has(id)) goneAt.set(id, performance.now());
          for (const id of talking) expect(live.get(id)?.state, id).toBe('healthy');
          return goneAt.size === SILENCED ? true : undefined;
        },
        STORM_HOLD_MS + 4 * INTERVAL_MS + 5_000,
        () => `held instances not evicted: ${silent.filter((id) => !goneAt.has(id)).join(', ')}`,
        25,
      );
      const times = [...goneAt.values()].sort((a, b) => a - b);
      expect(times[0]! - silencedAt).toBeGreaterThanOrEqual(STORM_HOLD_MS);
      expect(times[SILENCED - 1]! - times[0]!).toBeGreaterThanOrEqual(INTERVAL_MS * 0.8);
      for (const id of silent) expect(await store.keysOf(id, registry.url), id).toEqual([]);
      const evicted = registry
        .logs()
        .slice(logsBefore)
        .filter((line) => line.event === 'storm_evicted')
        .map((line) => line.evicted as string[]);
      expect(evicted.flat().sort()).toEqual([...silent].sort());
      expect(Math.max(...evicted.map((batch) => batch.length))).toBeLessThanOrEqual(2);
      expect(metricValue(await api.metrics(), 'reach_registry_evictions_total')).toBe(
        evictionsBefore + SILENCED,
      );
    });
  });
}
