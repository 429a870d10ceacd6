import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../harness/child-output.js';
import { OtlpReceiver, type ReceivedSpan } from '../harness/otlp-receiver.js';
import { FakeModelServer } from './fake-model-server.js';
import { type ApiEvent, type System, startSystem } from './system.js';

const node = (id: string, capability: string, depends_on: string[] = []) => ({
  id,
  capability,
  depends_on,
  parallel_group: `g-${id}`,
  purpose: `${capability} step`,
});

// Two layers of two parallel 1 s nodes, then an instant synthesis.
const PARALLEL_PLAN = {
  intent: 'parallel layers',
  nodes: [
    node('n1', 'research'),
    node('n2', 'planning'),
    node('n3', 'security_review', ['n1', 'n2']),
    node('n4', 'validation', ['n1', 'n2']),
    node('n5', 'synthesis', ['n3', 'n4']),
  ],
  final_node: 'n5',
  reasoning: 'two independent pairs',
};
const WRITING_PLAN = {
  intent: 'write',
  nodes: [node('n1', 'writing'), node('n2', 'synthesis', ['n1'])],
  final_node: 'n2',
  reasoning: 'one deliverable',
};

const SLOW = { DEMO_AGENT_DELAY_MS: '1000' };
let system: System;
const model = new FakeModelServer((task) => (task.includes('公告') ? WRITING_PLAN : PARALLEL_PLAN));
const otlp = new OtlpReceiver();

beforeAll(async () => {
  await model.start();
  await otlp.start();
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
  system = await startSystem({
    agents: [
      { key: 'research', env: SLOW },
      { key: 'planning', env: SLOW },
      { key: 'security_review', env: SLOW },
      { key: 'synthesis' },
      { key: 'writing', env: { DEMO_AGENT_DELAY_MS: '4000' } },
      { key: 'writing', env: { DEMO_AGENT_DELAY_MS: '4000' } },
    ],
    agentEnv: otel,
    orchestrator: {
      config: {
        orchestrator: { providers: [{ name: 'fake', base_url: model.baseUrl, model: 'fake-planner' }] },
      },
      env: otel,
    },
  });
}, 300_000);

afterAll(async () => {
  await system?.stop();
  await model.stop();
  await otlp.stop();
}, 120_000);

const at = (e: ApiEvent) => Date.parse(e.at);

describe('V4: nodes of a layer run in parallel', () => {
  let events: ApiEvent[] = [];
  let traceId = '';

  beforeAll(async () => {
    traceId = await system.api.start('run the parallel plan');
    events = await system.api.events(traceId);
  }, 120_000);

  it('two layers of parallel 1 s nodes take about 2 s, not the sum', async () => {
    const started = events.filter((e) => e.type === 'layer_started');
    const finished = events.filter((e) => e.type === 'layer_finished');
    expect(started.map((e) => e.data.nodes)).toEqual([['n1', 'n2'], ['n3', 'n4'], ['n5']]);
    expect(started.slice(0, 2).map((e) => e.data.mode)).toEqual(['parallel', 'parallel']);
    const succeededNodes = events.filter((e) => e.type === 'node_succeeded' && e.data.node_id !== 'n5');
    const msOf = (ids: string[]) =>
      succeededNodes.filter((e) => ids.includes(String(e.data.node_id))).map((e) => Number(e.data.ms));
    const nodeMs = msOf(['n1', 'n2', 'n3', 'n4']);
    const sum = nodeMs.reduce((a, b) => a + b, 0);
    const succeeded = JSON.stringify(
      events
        .filter((e) => /node_(succeeded|failed|attempt_failed)|capability_unavailable/.test(e.type))
        .map((e) => e.data),
    );
    // Only this system's agents answer.
    const endpoints = new Set(system.agents.map((a) => a.endpoint));
    for (const e of events.filter((x) => x.type === 'node_succeeded'))
      expect(endpoints.has(String(e.data.endpoint)), succeeded).toBe(true);
    expect(sum, succeeded).toBeGreaterThanOrEqual(4000);
    const layer = (i: number) => at(finished[i]!) - at(started[i]!);
    const twoLayers = at(finished[1]!) - at(started[0]!);
    // Parallel, not one after the other: a layer lasts at least one node's 1 s and less than its two
    // nodes' times added (run one by one it would last at least that sum), however slow the machine.
    const layerNodes = [msOf(['n1', 'n2']), msOf(['n3', 'n4'])];
    for (const [i, ms] of layerNodes.entries()) {
      expect(ms, succeeded).toHaveLength(2);
      expect(layer(i)).toBeGreaterThanOrEqual(1000);
      expect(layer(i)).toBeLessThan(ms[0]! + ms[1]!);
    }
    expect(twoLayers).toBeGreaterThanOrEqual(2000);
    expect(twoLayers).toBeLessThan(sum);
    const detail = await system.api.trace(traceId);
    expect(detail.trace.status).toBe('ok');
  });

  it('exports the span tree run → layer → node → attempt, with the agents server spans joined', async () => {
    const spans = await pollUntil(
      () => {
        const mine = otlp.spans.filter((s) => s.traceId === traceId);
        const agentSpans = mine.filter((s) => s.name === 'reach.agent.invoke');
        return agentSpans.length >= 5 && mine.some((s) => s.name === 'reach.run') ? mine : undefined;
      },
      30_000,
      () =>
        `spans so far: ${JSON.stringify(otlp.spans.filter((s) => s.traceId === traceId).map((s) => s.name))}`,
      200,
    );
    const named = (name: string) => spans.filter((s) => s.name === name);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const parentOf = (s: ReceivedSpan) => byId.get(s.parentSpanId);
    const [run] = named('reach.run');
    expect(run!.parentSpanId).toBe('');
    expect(run!.service).toBe('agent-reach-orchestrator');
    for (const s of [...named('reach.discovery'), ...named('reach.plan'), ...named('reach.layer')])
      expect(parentOf(s)).toBe(run);
    expect(named('reach.layer')).toHaveLength(3);
    expect(named('reach.node')).toHaveLength(5);
    for (const n of named('reach.node')) expect(parentOf(n)?.name).toBe('reach.layer');
    expect(named('reach.attempt')).toHaveLength(5);
    for (const a of named('reach.attempt')) expect(parentOf(a)?.name).toBe('reach.node');
    const served = named('reach.agent.invoke');
    expect(served).toHaveLength(5);
    for (const s of served) {
      expect(s.kind).toBe(2); // OTLP SPAN_KIND_SERVER
      expect(parentOf(s)?.name).toBe('reach.attempt');
      expect(s.service).toMatch(/-agent$/);
      expect(String(s.attributes['reach.request_id'])).toMatch(new RegExp(`^${traceId}\\.n[1-5]$`));
    }
    // Each attempt's server span carries the request id of the node the attempt belongs to.
    for (const a of named('reach.attempt')) {
      const nodeId = parentOf(a)!.attributes['reach.node_id'];
      const child = served.find((s) => s.parentSpanId === a.spanId);
      expect(child?.attributes['reach.request_id']).toBe(`${traceId}.${nodeId}`);
    }
  });
});

describe('V3: an agent killed mid-run', () => {
  it('fails the attempt, retries on an alternate and the run does not fail', async () => {
    const traceId = await system.api.start('写一份发布公告');
    const seen: ApiEvent[] = [];
    let killed = '';
    const messages = await system.api.stream(traceId, {
      stop: (m) => {
        if (m.event !== 'message') return m.event === 'done';
        const e = JSON.parse(m.data) as ApiEvent;
        seen.push(e);
        if (e.type === 'node_input' && e.data.node_id === 'n1' && killed === '') {
          const bound = seen.find((x) => x.type === 'agents_bound')!.data.bindings as Array<{
            node_id: string;
            primary: { endpoint: string };
          }>;
          killed = bound.find((b) => b.node_id === 'n1')!.primary.endpoint;
          const victim = system.agents.find((a) => a.endpoint === killed)!;
          // Let the call reach the agent (4 s of work), then kill it without a chance to deregister.
          setTimeout(() => void victim.process.kill(), 800);
        }
        return false;
      },
    });
    expect(messages.at(-1)!.event).toBe('done');
    const failed = seen.find((e) => e.type === 'node_attempt_failed' && e.data.node_id === 'n1');
    expect(failed?.data).toMatchObject({ attempt: 1, endpoint: killed });
    expect(['stream_broken', 'connect', 'ack_timeout']).toContain(failed?.data.failure);
    const retry = seen.find((e) => e.type === 'node_retry' && e.data.node_id === 'n1');
    expect(retry?.data.attempt).toBe(2);
    expect(retry?.data.endpoint).not.toBe(killed);
    const ok = seen.find((e) => e.type === 'node_succeeded' && e.data.node_id === 'n1');
    expect(ok?.data).toMatchObject({ attempts: 2 });
    const order = ['node_attempt_failed', 'node_retry', 'node_succeeded'].map((t) =>
      seen.findIndex((e) => e.type === t && e.data.node_id === 'n1'),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const detail = await system.api.trace(traceId);
    expect(['ok', 'degraded']).toContain(detail.trace.status);
    expect(detail.nodes.find((n) => n.node_id === 'n1')).toMatchObject({ status: 'succeeded', attempts: 2 });
  });
});
