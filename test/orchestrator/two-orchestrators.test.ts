import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableSystem, eventOf, finishedTrace } from './durable-system.js';
import { createScratchDatabase } from './postgres-db.js';
import type { TraceDetailJson } from './system.js';

const DELAYS = {
  research: 300,
  planning: 300,
  security_review: 1500,
  validation: 1500,
  writing: 300,
  synthesis: 100,
};
const NODES = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];

describe('two orchestrators on one Postgres, one SIGKILLed mid-way', () => {
  let system: DurableSystem;
  let database: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    system = await DurableSystem.start();
    await system.addAgents([
      { name: 'researcher', caps: ['research'], delays: DELAYS },
      { name: 'planner', caps: ['planning'], delays: DELAYS },
      { name: 'verifier', caps: ['security_review', 'validation'], delays: DELAYS },
      { name: 'writer', caps: ['writing'], delays: DELAYS },
      { name: 'synthesizer', caps: ['synthesis'], delays: DELAYS },
    ]);
    database = await createScratchDatabase();
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await database?.drop();
  }, 60_000);

  it('ends every one of 20 runs, none run twice, the dead one’s taken over within 10 s', async () => {
    const a = await system.orchestrator({ databaseUrl: database.url });
    const b = await system.orchestrator({ databaseUrl: database.url });
    const onA = await Promise.all(Array.from({ length: 10 }, (_, i) => a.api.start(`task a${i}`)));
    const onB = await Promise.all(Array.from({ length: 10 }, (_, i) => b.api.start(`task b${i}`)));
    // Mid-way: A's runs are in their slow second layer.
    await system.waitForCalls(onA.map((id) => `${id}.n3`));
    await a.proc.kill();
    const killedAt = Date.now();

    const details = new Map<string, TraceDetailJson>();
    for (const id of [...onA, ...onB]) details.set(id, await finishedTrace(b.api, id, 90_000));

    let takenOver = 0;
    for (const [id, detail] of details) {
      expect(detail.trace.status, id).toBe('ok');
      const finished = detail.events.filter((e) => e.type === 'trace_finished');
      expect(finished, id).toHaveLength(1);
      const resumed = eventOf(detail, 'run_resumed');
      // Only A's runs that were not over at the kill were taken over, each once, by B, within the
      // bound. (On a slow machine the first of A's runs can end before the last reaches its slow layer.)
      const overBeforeKill = Date.parse(finished[0]!.at) < killedAt;
      if (onB.includes(id) || overBeforeKill) expect(resumed, id).toBeUndefined();
      else {
        takenOver++;
        expect(resumed, id).toBeDefined();
        expect(
          detail.events.filter((e) => e.type === 'run_resumed'),
          id,
        ).toHaveLength(1);
        expect(Date.parse(resumed!.at) - killedAt, id).toBeLessThan(10_000);
      }
      // Counted at the agents: every node's work was done exactly once. A call cut by the crash was
      // cancelled at its agent (never answered) and re-sent with its request_id; a node the record
      // had finished was never called again.
      const reused = (resumed?.data.reused as string[] | undefined) ?? [];
      for (const n of NODES) {
        expect(system.answeredFor(`${id}.${n}`), `${id}.${n}`).toBe(1);
        if (reused.includes(n)) expect(system.callsFor(`${id}.${n}`), `${id}.${n}`).toBe(1);
      }
    }
    expect(takenOver).toBeGreaterThan(0);
  }, 180_000);

  it('hands a run over at once on SIGTERM: the other resumes it within a scan, not a lease', async () => {
    const a = await system.orchestrator({ databaseUrl: database.url });
    const b = await system.orchestrator({ databaseUrl: database.url });
    const id = await a.api.start('task handed over');
    await system.waitForCalls([`${id}.n3`]);
    const stoppedAt = Date.now();
    const exit = await a.proc.stop();
    expect(exit.code).toBe(0);
    const detail = await finishedTrace(b.api, id, 60_000);
    expect(detail.trace.status).toBe('ok');
    const types = detail.events.map((e) => e.type);
    expect(types.indexOf('run_handed_over')).toBeGreaterThan(-1);
    expect(types.indexOf('run_resumed')).toBeGreaterThan(types.indexOf('run_handed_over'));
    const resumed = eventOf(detail, 'run_resumed')!;
    // Released, not expired: nobody owned it when it was taken, and it took one scan (1 s), not a lease (5 s).
    expect(resumed.data.previous_owner).toBeNull();
    expect(Date.parse(resumed.at) - stoppedAt).toBeLessThan(4_000);
    for (const n of NODES) expect(system.answeredFor(`${id}.${n}`), n).toBe(1);
  }, 120_000);
});
