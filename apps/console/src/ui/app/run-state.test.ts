import type { TraceDetailWire, TraceEventWire } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { summarizeEvent } from '../../shared/event-summary.js';
import { formatAgo, formatMs } from '../../shared/format.js';
import {
  allNodesFinished,
  applyEvent,
  createRunState,
  nodesByLayer,
  spanBars,
  stateFromDetail,
} from './run-state.js';

const ID = 'cd'.repeat(16);
let seq = 0;
const at = (ms: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + ms).toISOString();
const ev = (type: string, data: Record<string, unknown>, ms = 0): TraceEventWire => ({
  trace_id: ID,
  seq: ++seq,
  type,
  at: at(ms),
  data,
});

/** The events of a run: planning → (writing ∥ security_review) → synthesis, with one fallback and one unavailable. */
function runEvents(): TraceEventWire[] {
  seq = 0;
  return [
    ev('trace_started', { task: 'plan a party', provider: null }),
    ev('discovery_finished', { ms: 40, available: ['planning', 'writing', 'synthesis'] }),
    ev('plan_ready', {
      plan: {
        nodes: [
          { id: 'n1', capability: 'planning', depends_on: [], purpose: 'steps' },
          { id: 'n2', capability: 'writing', depends_on: ['n1'], purpose: 'the plan' },
          { id: 'n3', capability: 'security_review', depends_on: ['n1'], purpose: 'risks' },
          { id: 'n4', capability: 'synthesis', depends_on: ['n1', 'n2', 'n3'], purpose: 'merge' },
        ],
        final_node: 'n4',
      },
      levels: [['n1'], ['n2', 'n3'], ['n4']],
      warnings: [],
      degraded: false,
      provider: null,
    }),
    ev('capability_unavailable', { node_id: 'n3', capability: 'security_review', reason: 'no_dns_record' }),
    ev('agents_bound', {
      bindings: [
        { node_id: 'n1', capability: 'planning', agent: 'planner-agent' },
        { node_id: 'n2', capability: 'writing', agent: 'writer-a' },
        { node_id: 'n3', capability: 'security_review', agent: null },
        { node_id: 'n4', capability: 'synthesis', agent: 'synthesizer-agent' },
      ],
    }),
    ev('layer_started', { layer: 0, nodes: ['n1'], mode: 'serial' }),
    ev('node_started', { node_id: 'n1', capability: 'planning' }, 100),
    ev('node_input', {
      node_id: 'n1',
      capability: 'planning',
      context: '',
      chars: 0,
      agent: 'planner-agent',
    }),
    ev('node_succeeded', {
      node_id: 'n1',
      capability: 'planning',
      ms: 250,
      chars: 12,
      attempts: 1,
      agent: 'planner-agent',
    }),
    ev('node_output', { node_id: 'n1', capability: 'planning', output: 'step 1, 2, 3', chars: 12 }),
    ev('layer_finished', { layer: 0, statuses: { n1: 'succeeded' } }),
    ev('layer_started', { layer: 1, nodes: ['n2', 'n3'], mode: 'parallel' }),
    ev('node_started', { node_id: 'n2', capability: 'writing' }, 400),
    ev('node_attempt_failed', {
      node_id: 'n2',
      capability: 'writing',
      attempt: 1,
      error: { code: 'UNAVAILABLE', message: 'connect refused' },
      agent: 'writer-a',
    }),
    ev('node_retry', { node_id: 'n2', capability: 'writing', attempt: 2, agent: 'writer-b' }),
    ev('node_started', { node_id: 'n3', capability: 'security_review' }, 400),
    ev(
      'node_failed',
      {
        node_id: 'n3',
        capability: 'security_review',
        stage: 'binding',
        error: { code: 'NO_CANDIDATES', message: 'none' },
      },
      401,
    ),
  ];
}

describe('run state', () => {
  it('folds events into nodes grouped by layer with state, agent, attempts and duration', () => {
    const state = createRunState(ID);
    for (const e of runEvents()) applyEvent(state, e);
    const layers = nodesByLayer(state).map((nodes) => nodes.map((n) => `${n.id}:${n.state}`));
    expect(layers).toEqual([['n1:succeeded'], ['n2:running', 'n3:unavailable'], ['n4:pending']]);
    expect(state.nodes.n1).toMatchObject({
      agent: 'planner-agent',
      attempts: 1,
      durationMs: 250,
      output: 'step 1, 2, 3',
    });
    expect(state.nodes.n2).toMatchObject({
      agent: 'writer-b',
      attempts: 2,
      error: 'UNAVAILABLE: connect refused',
    });
    expect(state.nodes.n3).toMatchObject({ agent: null, error: 'NO_CANDIDATES: none', durationMs: 1 });
    expect(state.currentLayer).toBe(1);
    expect(allNodesFinished(state)).toBe(false);
  });

  it('lays the run out as spans from the recorded event times', () => {
    const state = createRunState(ID);
    for (const e of runEvents()) applyEvent(state, e);
    const bars = spanBars(state);
    expect(bars.map((b) => b.id)).toEqual(['run', 'discovery', 'plan', 'n1', 'n2', 'n3']);
    expect(bars.find((b) => b.id === 'n1')).toMatchObject({ start: 100, state: 'succeeded' });
    // n2 is still running: no end yet; n3 failed one ms after its start.
    expect(bars.find((b) => b.id === 'n2')).toMatchObject({ start: 400, end: null });
    expect(bars.find((b) => b.id === 'n3')).toMatchObject({ start: 400, end: 401, state: 'unavailable' });
    expect(bars[0]).toMatchObject({ start: 0, end: null, state: 'running' });
  });

  it('ignores replayed events, so a reconnect changes nothing', () => {
    const once = createRunState(ID);
    const twice = createRunState(ID);
    const events = runEvents();
    for (const e of events) applyEvent(once, e);
    for (const e of [...events.slice(0, 10), ...events]) applyEvent(twice, e);
    expect(twice).toEqual(once);
    expect(applyEvent(once, events[3]!)).toBe(false);
  });

  it('finishes the run from trace_finished and layer_finished', () => {
    const state = createRunState(ID);
    for (const e of runEvents()) applyEvent(state, e);
    applyEvent(state, ev('layer_finished', { layer: 1, statuses: { n2: 'succeeded', n3: 'unavailable' } }));
    applyEvent(
      state,
      ev('node_failed', { node_id: 'n4', capability: 'synthesis', stage: 'execution', error: 'boom' }),
    );
    applyEvent(state, ev('trace_finished', { status: 'degraded', duration_ms: 900 }));
    expect(allNodesFinished(state)).toBe(true);
    expect(state).toMatchObject({ status: 'degraded', durationMs: 900, currentLayer: null });
    expect(state.nodes.n4!.state).toBe('failed');
  });

  it('rebuilds from a stored trace, taking full texts from the node rows', () => {
    const state = stateFromDetail({
      trace: {
        started_at: '2026-01-01T00:00:00Z',
        finished_at: '2026-01-01T00:00:01.2Z',
        id: ID,
        task: 'plan a party',
        status: 'ok',
        duration_ms: 1200,
        summary: 'the deliverable',
        error: null,
      },
      plan: { levels: [['n1'], ['n2']], warnings: ['dropped x'], degraded: true },
      nodes: [
        {
          node_id: 'n1',
          capability: 'planning',
          status: 'succeeded',
          layer: 0,
          depends_on: [],
          agent: 'p',
          attempts: 1,
          duration_ms: 30,
          input_context: '',
          output: 'full output',
        },
        {
          node_id: 'n2',
          capability: 'synthesis',
          status: 'failed',
          layer: 1,
          depends_on: ['n1'],
          agent: 's',
          attempts: 3,
          duration_ms: 90,
          input_context: 'ctx',
          output: null,
          error: 'TIMEOUT: slow',
        },
      ],
      events: [],
    } as unknown as TraceDetailWire);
    expect(nodesByLayer(state).map((l) => l.map((n) => `${n.id}:${n.state}:${n.attempts}`))).toEqual([
      ['n1:succeeded:1'],
      ['n2:failed:3'],
    ]);
    expect(state).toMatchObject({
      status: 'ok',
      summary: 'the deliverable',
      degraded: true,
      warnings: ['dropped x'],
    });
    expect(state.nodes.n2).toMatchObject({ context: 'ctx', error: 'TIMEOUT: slow', dependsOn: ['n1'] });
  });
});

describe('event summaries and formats', () => {
  it('says what each event means in one line', () => {
    const events = runEvents();
    const line = (type: string) => summarizeEvent(events.find((e) => e.type === type)!);
    expect(line('plan_ready')).toBe('4 nodes in 3 layers: [n1] → [n2, n3] → [n4]');
    expect(line('agents_bound')).toBe('n1→planner-agent, n2→writer-a, n3→none, n4→synthesizer-agent');
    expect(line('node_attempt_failed')).toBe('n2 attempt 1 at writer-a: UNAVAILABLE: connect refused');
    expect(line('node_failed')).toBe('n3 (binding): NO_CANDIDATES: none');
    expect(summarizeEvent({ type: 'brand_new', data: { x: 1 } })).toBe('{"x":1}');
    // A payload that breaks the summary falls back to its JSON instead of throwing.
    expect(summarizeEvent({ type: 'plan_ready', data: { levels: 'oops', plan: null } })).toContain('0 nodes');
  });

  it('formats durations and ages', () => {
    expect([formatMs(340), formatMs(1234), formatMs(185_000), formatMs(null)]).toEqual([
      '340ms',
      '1.2s',
      '3m05s',
      '–',
    ]);
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(formatAgo('2026-01-01T11:59:56Z', now)).toBe('4s ago');
    expect(formatAgo('2026-01-01T09:00:00Z', now)).toBe('3h ago');
    expect(formatAgo(null, now)).toBe('never');
  });
});
