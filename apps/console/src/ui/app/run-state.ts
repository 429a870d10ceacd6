// A run as the UI draws it, folded from trace events. Pure: no DOM, so the unit tests run it in Node.
import type {
  NodeStatus,
  TraceDetailWire,
  TraceEventWire,
  TraceStatus,
  TypedTraceEventWire,
} from '@agent-reach/sdk/protocol';
import { errorText } from '../../shared/format.js';

/** One node of a run as the UI draws it; `state` is the server's node status as it is. */
export interface RunNode {
  id: string;
  capability: string;
  purpose: string;
  dependsOn: string[];
  layer: number | null;
  state: NodeStatus;
  agent: string | null;
  attempts: number;
  durationMs: number | null;
  /** Wall-clock ms of `node_started` (or the node row's `started_at`). */
  startedAt: number | null;
  /** Wall-clock ms of the node's end event (or the row's `finished_at`). */
  finishedAt: number | null;
  chars: number | null;
  context: string | null;
  output: string | null;
  error: string | null;
}

/** A run folded from its events. */
export interface RunState {
  traceId: string;
  task: string | null;
  provider: string | null;
  status: TraceStatus;
  available: string[] | null;
  discoveryMs: number | null;
  levels: string[][];
  warnings: string[];
  degraded: boolean;
  planner: string | null;
  nodes: Record<string, RunNode>;
  order: string[];
  currentLayer: number | null;
  durationMs: number | null;
  error: string | null;
  summary: string | null;
  lastSeq: number;
  events: TraceEventWire[];
  /** Wall-clock ms of the first event (the run's start). */
  startedAt: number | null;
  /** Wall-clock ms of `discovery_finished` and `plan_ready`. */
  discoveredAt: number | null;
  plannedAt: number | null;
  /** Wall-clock ms of `trace_finished`. */
  finishedAt: number | null;
}

/** The node states that are final. */
export const FINISHED_NODE_STATES: readonly NodeStatus[] = [
  'succeeded',
  'failed',
  'unavailable',
  'skipped',
  'interrupted',
];

/** A fresh, empty run. */
export function createRunState(traceId: string): RunState {
  return {
    traceId,
    task: null,
    provider: null,
    status: 'running',
    available: null,
    discoveryMs: null,
    levels: [],
    warnings: [],
    degraded: false,
    planner: null,
    nodes: {},
    order: [],
    currentLayer: null,
    durationMs: null,
    error: null,
    summary: null,
    lastSeq: 0,
    events: [],
    startedAt: null,
    discoveredAt: null,
    plannedAt: null,
    finishedAt: null,
  };
}

function node(state: RunState, id: string, capability?: string): RunNode {
  let n = state.nodes[id];
  if (n === undefined) {
    n = {
      id,
      capability: capability ?? 'unknown',
      purpose: '',
      dependsOn: [],
      layer: null,
      state: 'pending',
      agent: null,
      attempts: 0,
      durationMs: null,
      startedAt: null,
      finishedAt: null,
      chars: null,
      context: null,
      output: null,
      error: null,
    };
    state.nodes[id] = n;
    state.order.push(id);
  } else if (capability && n.capability === 'unknown') {
    n.capability = capability;
  }
  return n;
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

function apply(s: RunState, e: TypedTraceEventWire, at: number | null): void {
  switch (e.type) {
    case 'trace_started':
      s.task = e.data.task;
      s.provider = e.data.provider ?? null;
      return;
    case 'discovery_finished':
      s.available = strings(e.data.available);
      s.discoveryMs = e.data.ms;
      s.discoveredAt = at;
      return;
    case 'plan_ready': {
      const d = e.data;
      s.levels = Array.isArray(d.levels) ? d.levels : [];
      s.warnings = strings(d.warnings);
      s.degraded = d.degraded === true;
      s.planner = d.provider ?? null;
      s.plannedAt = at;
      for (const raw of Array.isArray(d.plan?.nodes) ? d.plan.nodes : []) {
        const p = raw as { id?: unknown; capability?: unknown; purpose?: unknown; depends_on?: unknown };
        const id = str(p.id);
        if (id === null) continue;
        const n = node(s, id, str(p.capability) ?? undefined);
        n.purpose = str(p.purpose) ?? '';
        n.dependsOn = strings(p.depends_on);
      }
      s.levels.forEach((ids, layer) => {
        for (const id of ids) node(s, id).layer = layer;
      });
      return;
    }
    case 'agents_bound':
      for (const b of e.data.bindings ?? []) node(s, b.node_id, b.capability).agent = b.agent ?? null;
      return;
    case 'capability_unavailable': {
      const n = node(s, e.data.node_id, e.data.capability);
      n.state = 'unavailable';
      n.error = `no agent for ${e.data.capability} (${e.data.reason})`;
      return;
    }
    case 'layer_started':
      s.currentLayer = e.data.layer;
      return;
    case 'layer_finished':
      // Catches up nodes whose own events were not seen.
      for (const [id, status] of Object.entries(e.data.statuses ?? {})) {
        const n = node(s, id);
        if (n.state === 'pending' || n.state === 'running') n.state = status;
        if (n.finishedAt === null && FINISHED_NODE_STATES.includes(n.state)) n.finishedAt = at;
      }
      return;
    case 'node_started': {
      const n = node(s, e.data.node_id, e.data.capability);
      n.state = 'running';
      n.startedAt = at;
      return;
    }
    case 'node_input': {
      const n = node(s, e.data.node_id, str(e.data.capability) ?? undefined);
      n.context = e.data.context ?? null;
      n.agent = str(e.data.agent) ?? n.agent;
      n.attempts = Math.max(n.attempts, 1);
      return;
    }
    case 'node_retry': {
      const n = node(s, e.data.node_id, str(e.data.capability) ?? undefined);
      n.attempts = Math.max(n.attempts, e.data.attempt);
      n.agent = str(e.data.agent) ?? n.agent;
      return;
    }
    case 'node_attempt_failed': {
      const n = node(s, e.data.node_id, str(e.data.capability) ?? undefined);
      n.attempts = Math.max(n.attempts, e.data.attempt);
      n.error = errorText(e.data.error);
      return;
    }
    case 'node_succeeded': {
      const n = node(s, e.data.node_id, str(e.data.capability) ?? undefined);
      n.state = 'succeeded';
      n.durationMs = e.data.ms;
      n.attempts = e.data.attempts;
      n.chars = e.data.chars;
      n.error = null;
      n.finishedAt = at;
      n.agent = str(e.data.agent) ?? n.agent;
      return;
    }
    case 'node_output':
      node(s, e.data.node_id, str(e.data.capability) ?? undefined).output = e.data.output;
      return;
    case 'node_failed': {
      const n = node(s, e.data.node_id, str(e.data.capability) ?? undefined);
      n.state = e.data.stage === 'binding' ? 'unavailable' : 'failed';
      n.error = errorText(e.data.error);
      n.finishedAt = at;
      if (n.startedAt !== null && at !== null) n.durationMs = Math.max(0, at - n.startedAt);
      return;
    }
    case 'node_interrupted': {
      const n = node(s, e.data.node_id, e.data.capability);
      n.state = 'interrupted';
      n.error = e.data.reason;
      n.finishedAt = at;
      return;
    }
    case 'trace_finished': {
      s.status = e.data.status;
      const d = e.data as { duration_ms?: unknown; error?: unknown };
      s.durationMs = typeof d.duration_ms === 'number' ? d.duration_ms : null;
      s.error = str(d.error);
      s.currentLayer = null;
      s.finishedAt = at;
      return;
    }
    default:
      return;
  }
}

/** Folds one event into the run; false when it was a replay (seq at or below the last seen). */
export function applyEvent(state: RunState, event: TraceEventWire): boolean {
  if (typeof event?.seq !== 'number' || event.seq <= state.lastSeq) return false;
  state.lastSeq = event.seq;
  state.events.push(event);
  const parsed = Date.parse(event.at);
  const at = Number.isNaN(parsed) ? null : parsed;
  if (state.startedAt === null) state.startedAt = at;
  // The API records only events its schema accepted, so the payload has its type's shape.
  apply(state, event as TypedTraceEventWire, at);
  return true;
}

const ms = (iso: string | null): number | null => {
  if (iso === null) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

/** A run rebuilt from `GET /api/traces/{id}`: its events, then the stored rows (which have the full texts). */
export function stateFromDetail(detail: TraceDetailWire): RunState {
  const state = createRunState(detail.trace.id);
  for (const event of detail.events) applyEvent(state, event);
  state.task = detail.trace.task;
  state.status = detail.trace.status;
  state.durationMs = detail.trace.duration_ms ?? state.durationMs;
  state.summary = detail.trace.summary;
  state.error = detail.trace.error ?? state.error;
  state.startedAt = ms(detail.trace.started_at) ?? state.startedAt;
  state.finishedAt = ms(detail.trace.finished_at) ?? state.finishedAt;
  if (detail.plan) {
    state.levels = detail.plan.levels;
    state.warnings = detail.plan.warnings;
    state.degraded = detail.plan.degraded;
  }
  for (const row of detail.nodes) {
    const n = node(state, row.node_id, row.capability);
    n.state = row.status;
    n.layer = row.layer ?? n.layer;
    n.purpose = row.purpose ?? n.purpose;
    n.dependsOn = row.depends_on;
    n.agent = row.agent ?? n.agent;
    n.attempts = row.attempts || n.attempts;
    n.durationMs = row.duration_ms ?? n.durationMs;
    n.startedAt = ms(row.started_at) ?? n.startedAt;
    n.finishedAt = ms(row.finished_at) ?? n.finishedAt;
    n.chars = row.output_chars ?? n.chars;
    n.context = row.input_context ?? n.context;
    n.output = row.output ?? n.output;
    n.error = row.error ?? n.error;
  }
  return state;
}

/** The run's nodes grouped by layer, in plan order; nodes the plan did not place come last. */
export function nodesByLayer(state: RunState): RunNode[][] {
  const layers = state.levels.map((ids) =>
    ids.map((id) => state.nodes[id]).filter((n): n is RunNode => n !== undefined),
  );
  const placed = new Set(state.levels.flat());
  const rest = state.order.filter((id) => !placed.has(id)).map((id) => state.nodes[id]!);
  if (rest.length > 0) layers.push(rest);
  return layers;
}

/** True when every node has reached an end state. */
export function allNodesFinished(state: RunState): boolean {
  return (
    state.order.length > 0 && state.order.every((id) => FINISHED_NODE_STATES.includes(state.nodes[id]!.state))
  );
}

/** One bar of a trace's span waterfall, in ms from the run's start. */
export interface SpanBar {
  id: string;
  label: string;
  kind: 'run' | 'phase' | 'node';
  state: NodeStatus | TraceStatus;
  start: number;
  /** null: still going (drawn up to `now`). */
  end: number | null;
  detail: string;
}

/**
 * The run as spans: the run itself, discovery, planning, then each node from its start to its end,
 * all from the recorded event times (the same spans the orchestrator exports over OTLP).
 */
export function spanBars(state: RunState): SpanBar[] {
  const t0 = state.startedAt;
  if (t0 === null) return [];
  const rel = (t: number | null) => (t === null ? null : Math.max(0, t - t0));
  const bars: SpanBar[] = [
    {
      id: 'run',
      label: 'run',
      kind: 'run',
      state: state.status,
      start: 0,
      end: rel(state.finishedAt),
      detail: state.task ?? '',
    },
  ];
  if (state.discoveredAt !== null)
    bars.push({
      id: 'discovery',
      label: 'discovery',
      kind: 'phase',
      state: 'succeeded',
      start: Math.max(0, (rel(state.discoveredAt) ?? 0) - (state.discoveryMs ?? 0)),
      end: rel(state.discoveredAt),
      detail: `${state.available?.length ?? 0} capabilities available`,
    });
  if (state.plannedAt !== null)
    bars.push({
      id: 'plan',
      label: 'plan',
      kind: 'phase',
      state: state.degraded ? 'degraded' : 'succeeded',
      start: rel(state.discoveredAt) ?? 0,
      end: rel(state.plannedAt),
      detail: state.planner ? `planner ${state.planner}` : 'offline planner',
    });
  for (const layer of nodesByLayer(state))
    for (const n of layer) {
      if (n.startedAt === null) continue;
      bars.push({
        id: n.id,
        label: `${n.id} ${n.capability}`,
        kind: 'node',
        state: n.state,
        start: rel(n.startedAt) ?? 0,
        end: rel(n.finishedAt),
        detail: `${n.agent ?? 'unbound'} · ${n.attempts} attempt${n.attempts === 1 ? '' : 's'}`,
      });
    }
  return bars;
}
