import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableSystem, eventOf, finishedTrace, nodeStates, recordShows } from './durable-system.js';
import { createScratchDatabase } from './postgres-db.js';

// Layer 1 (n3, n4) is slow, so the orchestrator dies while both of its calls are in flight.
const DELAYS = {
  research: 200,
  planning: 200,
  security_review: 5000,
  validation: 5000,
  writing: 200,
  synthesis: 100,
};
const AGENTS = [
  { name: 'researcher', caps: ['research'], delays: DELAYS },
  { name: 'planner', caps: ['planning'], delays: DELAYS },
  { name: 'verifier', caps: ['security_review', 'validation'], delays: DELAYS },
  { name: 'writer', caps: ['writing'], delays: DELAYS },
  { name: 'synthesizer', caps: ['synthesis'], delays: DELAYS },
];

describe.each(['Postgres', 'PGlite'] as const)(
  'a six-node run whose orchestrator is SIGKILLed · %s',
  (store) => {
    let system: DurableSystem;
    let database: { url: string; drop: () => Promise<void> } | undefined;

    beforeAll(async () => {
      system = await DurableSystem.start();
      await system.addAgents(AGENTS);
      if (store === 'Postgres') database = await createScratchDatabase();
    }, 120_000);
    afterAll(async () => {
      await system?.stop();
      await database?.drop();
    }, 60_000);

    it('is finished by the restarted orchestrator, every finished node reused', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'reach-durable-orch-'));
      const options = { ...(database ? { databaseUrl: database.url } : {}), dir };
      const first = await system.orchestrator(options);
      const id = await first.api.start('write a release checklist for the logout endpoint');
      const rid = (n: string) => `${id}.${n}`;
      await system.waitForCalls([rid('n3'), rid('n4')]);
      // Mid-layer, as the record says it: layer 0 finished, both calls of layer 1 in flight.
      await recordShows(first.api, id, (d) => {
        const s = nodeStates(d);
        return (
          s.n1 === 'succeeded' &&
          s.n2 === 'succeeded' &&
          s.n3 === 'running+in_flight' &&
          s.n4 === 'running+in_flight'
        );
      });
      await first.proc.kill();
      const killedAt = Date.now();

      const second = await system.orchestrator(options);
      const detail = await finishedTrace(second.api, id);
      expect(detail.trace.status).toBe('ok');
      expect(detail.nodes.map((n) => [n.node_id, n.status])).toEqual(
        ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'].map((n) => [n, 'succeeded']),
      );

      const resumed = eventOf(detail, 'run_resumed')!;
      expect(resumed.data).toMatchObject({
        reused: ['n1', 'n2'],
        in_flight: ['n3', 'n4'],
        pending: ['n5', 'n6'],
      });
      expect(resumed.data.by).not.toBe(resumed.data.previous_owner);
      expect(Date.parse(resumed.at) - killedAt).toBeLessThan(10_000 + 15_000); // lease + a process start
      const types = detail.events.map((e) => e.type);
      expect(types.indexOf('run_resumed')).toBeGreaterThan(types.indexOf('layer_started'));
      expect(types.at(-1)).toBe('trace_finished');
      expect(detail.events.at(-1)!.data.status).toBe('ok');
      expect(types.filter((t) => t === 'trace_finished')).toHaveLength(1);

      // Counted at the agents: finished nodes never called again; in-flight ones re-sent with their
      // request_id (their first handler was cancelled when the caller died), the rest once.
      for (const n of ['n1', 'n2', 'n5', 'n6']) expect(system.callsFor(rid(n)), n).toBe(1);
      for (const n of ['n3', 'n4']) expect(system.callsFor(rid(n)), n).toBe(2);
      // The deliverable still carries the reused nodes' outputs.
      expect(detail.trace.summary).toContain('synthesis by synthesizer');
      expect(detail.trace.summary).toContain('writing by writer for n5');
    }, 120_000);
  },
);

describe('a non-idempotent call in flight when its orchestrator and its agent die', () => {
  let system: DurableSystem;
  let database: { url: string; drop: () => Promise<void> };

  beforeAll(async () => {
    system = await DurableSystem.start();
    await system.addAgents([
      ...AGENTS.filter((a) => a.name !== 'verifier'),
      { name: 'validator', caps: ['validation'], delays: DELAYS },
      // Two non-idempotent security reviewers: the one that got the call dies with the orchestrator.
      { name: 'reviewer-a', caps: ['security_review'], delays: DELAYS, idempotent: false },
      { name: 'reviewer-b', caps: ['security_review'], delays: DELAYS, idempotent: false },
    ]);
    database = await createScratchDatabase();
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await database?.drop();
  }, 60_000);

  it('ends interrupted, never re-sent to the other agent, and the run degraded', async () => {
    const first = await system.orchestrator({ databaseUrl: database.url });
    const id = await first.api.start('review the logout endpoint');
    const n3 = `${id}.n3`;
    await system.waitForCalls([n3, `${id}.n4`]);
    const reviewers = system.agents.filter((a) => a.name.startsWith('reviewer-'));
    const called = reviewers.find((a) => (a.calls().get(n3) ?? 0) > 0)!;
    const other = reviewers.find((a) => a !== called)!;
    // No wait here: a non-idempotent call is recorded before it is sent.
    await Promise.all([first.proc.kill(), called.process.kill()]);

    const second = await system.orchestrator({ databaseUrl: database.url });
    const detail = await finishedTrace(second.api, id);
    expect(detail.trace.status).toBe('degraded');
    const statuses = Object.fromEntries(detail.nodes.map((n) => [n.node_id, n.status]));
    expect(statuses).toEqual({
      n1: 'succeeded',
      n2: 'succeeded',
      n3: 'interrupted',
      n4: 'succeeded',
      n5: 'succeeded',
      n6: 'succeeded',
    });
    const interrupted = eventOf(detail, 'node_interrupted')!;
    expect(interrupted.data).toMatchObject({ node_id: 'n3', agent: called.name });
    expect(other.calls().get(n3) ?? 0).toBe(0);
    expect(system.callsFor(n3)).toBe(1);
    expect(detail.events.filter((e) => e.type === 'node_retry' && e.data.node_id === 'n3')).toEqual([]);
  }, 120_000);
});
