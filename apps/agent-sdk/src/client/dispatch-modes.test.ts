import { afterEach, describe, expect, it } from 'vitest';
import {
  behaviours,
  candidate,
  fakeRegistry,
  startTestAgent,
  type TestAgent,
} from '../testing/test-agents.js';
import { ReachClient } from './reach-client.js';

const agents: TestAgent[] = [];
const clients: ReachClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

async function agent(behaviour: Parameters<typeof startTestAgent>[0]) {
  const started = await startTestAgent(behaviour);
  agents.push(started);
  return started;
}

function client(registry: ReturnType<typeof fakeRegistry>) {
  const made = new ReachClient({
    registryUrl: 'http://registry.test',
    fetch: registry.fetch,
    ackTimeout: '400ms',
  });
  clients.push(made);
  return made;
}

const need = { operation: 'summarize' };
const settle = (ms = 100) => new Promise((resolve) => setTimeout(resolve, ms));

describe('first_win', () => {
  it('races the top k, takes the first result and cancels the losers with A2A CancelTask', async () => {
    const slowA = await agent(behaviours.answer('slow A', 3000));
    const fast = await agent(behaviours.answer('fast', 50));
    const slowB = await agent(behaviours.answer('slow B', 3000));
    const registry = fakeRegistry(() => [
      candidate('slow-a', slowA.port),
      candidate('fast-1', fast.port),
      candidate('slow-b', slowB.port),
    ]);
    const reach = client(registry);
    const started = performance.now();
    const result = await reach.reach({ need, input: {}, mode: 'first_win', k: 3, requestId: 'race-1' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.ok && result.value.output).toBe('fast');
    await settle();
    expect(slowA.cancelled).toEqual(['race-1']);
    expect(slowB.cancelled).toEqual(['race-1']);
    expect(fast.cancelled).toEqual([]);
    expect(fast.aborted).toEqual([]);
    await reach.close();
    const outcomes = registry.outcomes();
    expect(
      outcomes
        .filter((o) => o.failure === 'cancelled')
        .map((o) => o.instance_id)
        .sort(),
    ).toEqual(['slow-a', 'slow-b']);
    expect(outcomes.find((o) => o.ok)).toMatchObject({ instance_id: 'fast-1', final: true });
  });

  it('keeps racing with spare candidates when a racer fails before its ack', async () => {
    const broken = await agent(behaviours.status(503));
    const slow = await agent(behaviours.answer('slow', 400));
    const spare = await agent(behaviours.answer('spare', 10));
    const registry = fakeRegistry(() => [
      candidate('broken-1', broken.port),
      candidate('slow-1', slow.port),
      candidate('spare-1', spare.port),
    ]);
    const result = await client(registry).reach({ need, input: {}, k: 2 });
    expect(result.ok && result.value.output).toBe('spare');
  });
});

describe('all_must', () => {
  it('succeeds only when every selected target succeeds, with every output in order', async () => {
    const parts = await Promise.all(['p1', 'p2', 'p3'].map((p) => agent(behaviours.answer(p, 20))));
    const registry = fakeRegistry(() => parts.map((p, i) => candidate(`part-${i}`, p.port)));
    const result = await client(registry).reach({
      need: { ...need, max_candidates: 3 },
      input: {},
      mode: 'all_must',
      k: 3,
    });
    expect(result.ok && result.value.output).toEqual(['p1', 'p2', 'p3']);
  });

  it('fails with each failed target’s error', async () => {
    const good = await agent(behaviours.answer('ok'));
    const down = await agent(behaviours.status(503, { code: 'UNAVAILABLE', message: 'down' }));
    const broken = await agent(behaviours.crashAfterAck());
    const registry = fakeRegistry(() => [
      candidate('good-1', good.port),
      candidate('down-1', down.port),
      candidate('broken-1', broken.port, { idempotent: false }),
    ]);
    const result = await client(registry).reach({
      need: { ...need, max_candidates: 3 },
      input: {},
      mode: 'all_must',
      k: 3,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/2 of 3 targets failed/);
    const failures = (result.error.data as { failures: Array<{ instance_id: string; failure: string }> })
      .failures;
    expect(failures.map((f) => [f.instance_id, f.failure]).sort()).toEqual([
      ['broken-1', 'stream_broken'],
      ['down-1', 'http_5xx'],
    ]);
  });
});

describe('synthesize', () => {
  it('collects the successes and merges them with the given function', async () => {
    const a = await agent(behaviours.answer('view A'));
    const b = await agent(behaviours.answer('view B', 30));
    const down = await agent(behaviours.status(500));
    const registry = fakeRegistry(() => [
      candidate('a-1', a.port),
      candidate('b-1', b.port),
      candidate('down-1', down.port),
    ]);
    const result = await client(registry).reach({
      need: { ...need, max_candidates: 3 },
      input: {},
      mode: 'synthesize',
      k: 3,
      merge: (results) => results.map((r) => r.output).join(' + '),
    });
    expect(result.ok && result.value.output).toBe('view A + view B');
    expect(result.ok && result.value.results.map((r) => r.instance_id)).toEqual(['a-1', 'b-1']);
  });

  it('asks a synthesis-capable agent to merge when no function is given', async () => {
    const a = await agent(behaviours.answer('view A'));
    const b = await agent(behaviours.answer('view B'));
    const synth = await agent((x) => {
      x.ack();
      const { outputs } = x.request.input as { outputs: Array<{ output: string }> };
      x.result(`merged(${outputs.map((o) => o.output).join(',')})`);
    });
    const registry = fakeRegistry((query) =>
      query.operation === 'synthesis'
        ? [candidate('synth-1', synth.port, { operation: 'synthesis' })]
        : [candidate('a-1', a.port), candidate('b-1', b.port)],
    );
    const result = await client(registry).reach({
      need,
      input: {},
      mode: 'synthesize',
      k: 2,
      requestId: 'syn-1',
    });
    expect(result.ok && result.value.output).toBe('merged(view A,view B)');
    expect(synth.requests[0]!.request_id).toBe('syn-1:synthesis');
  });
});
