import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { Binding, Candidate } from '../discovery/index.js';
import type { Plan } from '../plan/index.js';
import { TraceEventInput } from '../traces/events.js';
import { executePlan } from './execute-plan.js';
import { outcomeReport } from './outcome-report.js';
import type { AttemptOutcome, AttemptReport, CallAttempt, NodePatch, RunLog } from './ports.js';

function candidate(name: string, idempotent = true): Candidate {
  return {
    instance: `${name}-1`,
    agent_name: name,
    endpoint: `127.0.0.1:${name.length + 9000}`,
    target: `${name}-1.agents.internal`,
    address: '127.0.0.1',
    port: name.length + 9000,
    priority: 1,
    weight: 1,
    health: 'healthy',
    card_version: '1',
    card_sha256: 'x'.repeat(43),
    capability_ids: [],
    idempotent,
    baseUrl: `http://127.0.0.1:${name.length + 9000}`,
    card: {} as Candidate['card'],
  };
}

function bound(primary: Candidate, ...alternates: Candidate[]): Binding {
  return {
    ok: true,
    capability: 'x',
    primary,
    alternates,
    selection: {
      strategy: 'priority_then_weighted_random',
      priority: 1,
      weight: 1,
      pool: 1 + alternates.length,
      source: 'svcb',
    },
  };
}

function recorder() {
  const events: TraceEventInput[] = [];
  const patches: Array<[string, NodePatch]> = [];
  const log: RunLog = {
    async event(e) {
      // Every event must satisfy the store's schema.
      events.push(TraceEventInput.parse(e));
    },
    async node(id, patch) {
      patches.push([id, patch]);
    },
    async flush() {},
  };
  return { log, events, patches, types: () => events.map((e) => e.type) };
}

const ok = (text: string, ms = 1): AttemptOutcome => ({ ok: true, output: { text }, ms });
const refused: AttemptOutcome = {
  ok: false,
  failure: 'connect',
  code: 'UNAVAILABLE',
  message: 'refused',
  acked: false,
  retryable: true,
  ms: 1,
};
const brokenAfterAck: AttemptOutcome = {
  ok: false,
  failure: 'stream_broken',
  code: 'UNAVAILABLE',
  message: 'stream ended',
  acked: true,
  retryable: true,
  ms: 5,
};

const plan: Plan = {
  intent: 't',
  nodes: [
    { id: 'n1', capability: 'research', depends_on: [], parallel_group: 'g1', purpose: 'facts' },
    { id: 'n2', capability: 'planning', depends_on: [], parallel_group: 'g1', purpose: 'steps' },
    { id: 'n3', capability: 'synthesis', depends_on: ['n1', 'n2'], parallel_group: 'g2', purpose: 'merge' },
  ],
  final_node: 'n3',
  reasoning: '',
};
const layers = [['n1', 'n2'], ['n3']];

function deps(call: CallAttempt, log: RunLog) {
  return {
    traceId: 'a'.repeat(32),
    task: 'do it',
    log,
    call,
    tracer: trace.getTracer('t'),
    executionTimeoutMs: 30_000,
    now: () => performance.now(),
  };
}

describe('executePlan', () => {
  it('keeps going when a node fails, and hands the survivors to the next layer', async () => {
    const r = recorder();
    const calls: string[] = [];
    const call: CallAttempt = async (target, request) => {
      calls.push(`${request.request_id}@${target.agent_name}`);
      if (target.agent_name === 'planner') return refused;
      return ok(`${request.capability} output`);
    };
    const bindings = new Map([
      ['n1', bound(candidate('researcher'))],
      ['n2', bound(candidate('planner'))],
      ['n3', bound(candidate('synth'))],
    ]);
    const outcomes = await executePlan(plan, layers, bindings, deps(call, r.log), ROOT_CONTEXT);
    expect(outcomes.map((o) => o.status)).toEqual(['succeeded', 'failed', 'succeeded']);
    expect(r.types().filter((t) => t === 'node_failed')).toHaveLength(1);
    const input = r.events.find((e) => e.type === 'node_input' && e.data.node_id === 'n3');
    expect(input?.type === 'node_input' && input.data.context).toContain('research output');
    expect(input?.type === 'node_input' && input.data.context).not.toContain('planning output');
    expect(r.events.filter((e) => e.type === 'layer_finished').map((e) => e.data)).toEqual([
      { layer: 0, statuses: { n1: 'succeeded', n2: 'failed' } },
      { layer: 1, statuses: { n3: 'succeeded' } },
    ]);
  });

  it('retries on an alternate with the same request id, and records each attempt', async () => {
    const r = recorder();
    const seen: Array<{ id: string; agent: string; traceparent?: string }> = [];
    const call: CallAttempt = async (target, request, opts) => {
      seen.push({ id: request.request_id, agent: target.agent_name, traceparent: opts.traceparent });
      return target.agent_name === 'dead' ? brokenAfterAck : ok('fine');
    };
    const single: Plan = { ...plan, nodes: [plan.nodes[0]!], final_node: 'n1' };
    const reports: AttemptReport[] = [];
    const outcomes = await executePlan(
      single,
      [['n1']],
      new Map([['n1', bound(candidate('dead'), candidate('alive'))]]),
      { ...deps(call, r.log), onAttempt: (a) => reports.push(a) },
      ROOT_CONTEXT,
    );
    expect(outcomes[0]!.status).toBe('succeeded');
    // What goes to the registry: both attempts, the second one a fallback that ended the call.
    expect(reports.map(outcomeReport)).toMatchObject([
      {
        instance_id: 'dead-1',
        attempt: 1,
        ok: false,
        failure: 'stream_broken',
        fallback: false,
        final: false,
      },
      { instance_id: 'alive-1', attempt: 2, ok: true, fallback: true, final: true },
    ]);
    expect(seen.map((s) => s.agent)).toEqual(['dead', 'alive']);
    expect(new Set(seen.map((s) => s.id))).toEqual(new Set([`${'a'.repeat(32)}.n1`]));
    expect(r.types()).toEqual([
      'layer_started',
      'node_started',
      'context_compacted',
      'node_input',
      'node_attempt_failed',
      'node_retry',
      'node_succeeded',
      'node_output',
      'layer_finished',
    ]);
    const succeeded = r.events.find((e) => e.type === 'node_succeeded');
    expect(succeeded?.data).toMatchObject({ attempts: 2, agent: 'alive' });
  });

  it('does not fall back after the ack when the operation is not idempotent', async () => {
    const r = recorder();
    let calls = 0;
    const call: CallAttempt = async () => {
      calls++;
      return brokenAfterAck;
    };
    const single: Plan = { ...plan, nodes: [plan.nodes[0]!], final_node: 'n1' };
    const bindings = new Map([['n1', bound(candidate('once', false), candidate('other'))]]);
    const outcomes = await executePlan(single, [['n1']], bindings, deps(call, r.log), ROOT_CONTEXT);
    expect(outcomes[0]!.status).toBe('failed');
    expect(calls).toBe(1);
    expect(r.patches.find(([, p]) => p.status === 'failed')?.[1].attempts).toBe(1);
  });

  it('stops falling back when the retry budget is spent', async () => {
    const r = recorder();
    let calls = 0;
    const call: CallAttempt = async () => {
      calls++;
      return refused;
    };
    const single: Plan = { ...plan, nodes: [plan.nodes[0]!], final_node: 'n1' };
    const budget = { deposit: () => {}, tryWithdraw: () => false };
    const bindings = new Map([['n1', bound(candidate('a'), candidate('b'))]]);
    const outcomes = await executePlan(
      single,
      [['n1']],
      bindings,
      { ...deps(call, r.log), budget },
      ROOT_CONTEXT,
    );
    expect(outcomes[0]!.status).toBe('failed');
    expect(calls).toBe(1);
    const failed = r.events.find((e) => e.type === 'node_failed');
    expect(JSON.stringify(failed?.data)).toContain('retry budget exhausted');
  });

  it('marks a node without a binding unavailable and says so', async () => {
    const r = recorder();
    const unbound: Binding = { ok: false, capability: 'research', reason: 'no_dns_record', failed: [] };
    const single: Plan = { ...plan, nodes: [plan.nodes[0]!], final_node: 'n1' };
    const outcomes = await executePlan(
      single,
      [['n1']],
      new Map([['n1', unbound]]),
      deps(async () => ok('x'), r.log),
      ROOT_CONTEXT,
    );
    expect(outcomes[0]!.status).toBe('unavailable');
    expect(r.events.find((e) => e.type === 'node_failed')?.data).toMatchObject({ stage: 'binding' });
  });

  it('runs the nodes of a layer at the same time', async () => {
    const r = recorder();
    const call: CallAttempt = async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return ok('slow');
    };
    const bindings = new Map(plan.nodes.map((n) => [n.id, bound(candidate(n.id))]));
    const t0 = performance.now();
    await executePlan(plan, layers, bindings, deps(call, r.log), ROOT_CONTEXT);
    const elapsed = performance.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(295);
    expect(elapsed).toBeLessThan(440);
  });

  it('survives a recorder that throws for one node', async () => {
    const r = recorder();
    const flaky: RunLog = {
      event: (e) =>
        e.type === 'node_started' && e.data.node_id === 'n1'
          ? Promise.reject(new Error('db down'))
          : r.log.event(e),
      node: r.log.node,
      flush: r.log.flush,
    };
    const bindings = new Map(plan.nodes.map((n) => [n.id, bound(candidate(n.id))]));
    const outcomes = await executePlan(
      plan,
      layers,
      bindings,
      deps(async () => ok('x'), flaky),
      ROOT_CONTEXT,
    );
    expect(outcomes.map((o) => o.status)).toEqual(['failed', 'succeeded', 'succeeded']);
  });
});
