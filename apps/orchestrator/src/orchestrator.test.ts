import { DEFAULT_CATALOG, ok } from '@agent-reach/sdk/protocol';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import type { Binding, Candidate, Discovery } from './discovery/index.js';
import type { CallAttempt } from './execution/index.js';
import { Orchestrator } from './orchestrator.js';
import { Planner } from './planner/index.js';
import type { TraceBatch, TraceEventInput, TraceStore } from './traces/index.js';

/** The two writes a run makes (its start, then its batches), in memory. */
function memoryStore() {
  const traces = new Map<string, { status: string; summary?: string | null }>();
  const events: Array<{ traceId: string; type: string; data: Record<string, unknown> }> = [];
  const order: string[] = [];
  const record = (traceId: string, e: TraceEventInput) => {
    events.push({ traceId, type: e.type, data: e.data as Record<string, unknown> });
    order.push(e.type);
  };
  const store = {
    createTrace: async (input: { id?: string; task: string }, first?: TraceEventInput) => {
      traces.set(input.id!, { status: 'running' });
      if (first) record(input.id!, first);
      return { id: input.id } as never;
    },
    writeBatch: async (traceId: string, batch: TraceBatch) => {
      for (const b of batch.events ?? []) record(traceId, b.event);
      const end = batch.finish;
      if (end) {
        traces.set(traceId, end.trace);
        order.push(`finish:${end.trace.status}`);
        if (end.event) record(traceId, end.event);
      }
      return ok({ events: [], finished: end !== undefined });
    },
  };
  return { store: store as unknown as TraceStore, traces, events, order };
}

const candidate = (cap: string): Candidate =>
  ({
    instance: `${cap}-1`,
    agent_name: `${cap}-agent`,
    endpoint: '127.0.0.1:1',
    idempotent: true,
    priority: 1,
    weight: 1,
    health: 'healthy',
  }) as Candidate;

const discovery = {
  view: {
    duration_ms: 1,
    capabilities: Object.fromEntries(DEFAULT_CATALOG.map((c) => [c, { capability: c, available: true }])),
    stats: {},
  },
  candidates: new Map(),
} as unknown as Discovery;
const bindAll = (_d: Discovery, cap: string): Binding => ({
  ok: true,
  capability: cap,
  primary: candidate(cap),
  alternates: [],
  selection: { strategy: 'priority_then_weighted_random', priority: 1, weight: 1, pool: 1, source: 'svcb' },
});

function orchestrator(call: CallAttempt, options: { planner?: Planner; bind?: typeof bindAll } = {}) {
  const mem = memoryStore();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const o = new Orchestrator({
    store: mem.store,
    index: { discover: async () => discovery, bind: options.bind ?? bindAll },
    planner: options.planner ?? new Planner({ providers: [] }),
    call,
    tracer: provider.getTracer('test'),
    providers: [],
  });
  return { o, mem, exporter };
}

const answer: CallAttempt = async (_t, r) => ({ ok: true, output: { text: `${r.capability} done` }, ms: 1 });

describe('Orchestrator', () => {
  it('uses the run span trace id as the trace id, and finishes the row before trace_finished', async () => {
    const { o, mem, exporter } = orchestrator(answer);
    const { traceId, done } = await o.start({ task: '设计一份生日派对策划' });
    const summary = await done;
    expect(summary.status).toBe('ok');
    const run = exporter.getFinishedSpans().find((s) => s.name === 'reach.run')!;
    expect(run.spanContext().traceId).toBe(traceId);
    expect(mem.order.slice(-2)).toEqual(['finish:ok', 'trace_finished']);
    expect(mem.order[0]).toBe('trace_started');
    const names = new Set(exporter.getFinishedSpans().map((s) => s.name));
    expect([...names].sort()).toEqual([
      'reach.attempt',
      'reach.discovery',
      'reach.layer',
      'reach.node',
      'reach.plan',
      'reach.run',
    ]);
  });

  it('ends degraded when a node fails and failed when nothing succeeds', async () => {
    const partly: CallAttempt = async (t, r) =>
      r.capability === 'synthesis'
        ? answer(t, r, {})
        : { ok: false, failure: 'connect', code: 'UNAVAILABLE', message: 'down', acked: false, ms: 1 };
    expect((await orchestrator(partly).o.run({ task: '设计一份生日派对策划' })).status).toBe('degraded');
    const none: CallAttempt = async () => ({
      ok: false,
      failure: 'connect',
      code: 'UNAVAILABLE',
      message: 'down',
      acked: false,
      ms: 1,
    });
    const failed = await orchestrator(none).o.run({ task: '设计一份生日派对策划' });
    expect(failed.status).toBe('failed');
    expect(failed.nodes.every((n) => n.status === 'failed')).toBe(true);
  });

  it('ends degraded when the planner had to fall back, even if every node worked', async () => {
    const broken = {
      plan: async (task: string) => ({
        ...(await new Planner({ providers: [] }).plan(task)),
        degraded: true,
      }),
    } as unknown as Planner;
    const summary = await orchestrator(answer, { planner: broken }).o.run({ task: 'write a plan' });
    expect(summary).toMatchObject({ status: 'degraded', plan_degraded: true });
  });

  it('records unbound capabilities and still runs the rest', async () => {
    const bind = (d: Discovery, cap: string): Binding =>
      cap === 'synthesis'
        ? { ok: false, capability: cap, reason: 'no_dns_record', failed: [] }
        : bindAll(d, cap);
    const { o, mem } = orchestrator(answer, { bind });
    const summary = await o.run({ task: '设计一份生日派对策划' });
    expect(summary.status).toBe('degraded');
    expect(
      mem.events.some((e) => e.type === 'capability_unavailable' && e.data.capability === 'synthesis'),
    ).toBe(true);
    expect(summary.nodes.find((n) => n.capability === 'synthesis')?.status).toBe('unavailable');
  });

  it('ends a cancelled run as aborted', async () => {
    const hang: CallAttempt = (_t, _r, { signal }) =>
      new Promise((resolve) =>
        signal?.addEventListener('abort', () =>
          resolve({
            ok: false,
            failure: 'cancelled',
            code: 'CANCELLED',
            message: 'stopped',
            acked: true,
            ms: 1,
          }),
        ),
      );
    const { o, mem } = orchestrator(hang);
    const { traceId, done } = await o.start({ task: '设计一份生日派对策划' });
    await new Promise((r) => setTimeout(r, 50));
    expect(o.active()).toEqual([traceId]);
    expect(await o.cancel(traceId)).toBe(true);
    expect((await done).status).toBe('aborted');
    expect(mem.traces.get(traceId)?.status).toBe('aborted');
    expect(o.active()).toEqual([]);
  });

  it('refuses an unknown provider before writing anything', async () => {
    const { o, mem } = orchestrator(answer);
    await expect(o.start({ task: 'x', provider: 'nope' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(mem.traces.size).toBe(0);
  });
});
