// A run as the UI draws it, folded from trace events (typed in run-state.d.ts). Pure: no DOM.
import { errorText } from './format.js';

/** How the store names node statuses → how the UI shows them. */
const NODE_STATE_OF_STATUS = {
  pending: 'pending',
  running: 'running',
  succeeded: 'ok',
  failed: 'failed',
  unavailable: 'unavailable',
  skipped: 'skipped',
};

/** A fresh, empty run. */
export function createRunState(traceId) {
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
  };
}

function node(state, id, capability) {
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

const APPLY = {
  trace_started(s, d) {
    s.task = d.task ?? null;
    s.provider = d.provider ?? null;
  },
  discovery_finished(s, d) {
    s.available = Array.isArray(d.available) ? d.available : [];
    s.discoveryMs = d.ms ?? null;
  },
  plan_ready(s, d) {
    s.levels = Array.isArray(d.levels) ? d.levels : [];
    s.warnings = Array.isArray(d.warnings) ? d.warnings : [];
    s.degraded = d.degraded === true;
    s.planner = d.provider ?? null;
    for (const p of d.plan?.nodes ?? []) {
      const n = node(s, p.id, p.capability);
      n.purpose = p.purpose ?? '';
      n.dependsOn = Array.isArray(p.depends_on) ? p.depends_on : [];
    }
    s.levels.forEach((ids, layer) => {
      for (const id of ids) node(s, id).layer = layer;
    });
  },
  agents_bound(s, d) {
    for (const b of d.bindings ?? []) node(s, b.node_id, b.capability).agent = b.agent ?? null;
  },
  capability_unavailable(s, d) {
    const n = node(s, d.node_id, d.capability);
    n.state = 'unavailable';
    n.error = `no agent for ${d.capability} (${d.reason})`;
  },
  layer_started(s, d) {
    s.currentLayer = d.layer;
  },
  layer_finished(s, d) {
    // Catches up nodes whose own events were not seen.
    for (const [id, status] of Object.entries(d.statuses ?? {})) {
      const n = node(s, id);
      if (n.state === 'pending' || n.state === 'running') n.state = NODE_STATE_OF_STATUS[status] ?? n.state;
    }
  },
  node_started(s, d, at) {
    const n = node(s, d.node_id, d.capability);
    n.state = 'running';
    n.startedAt = at;
  },
  node_input(s, d) {
    const n = node(s, d.node_id, d.capability);
    n.context = d.context ?? null;
    if (d.agent) n.agent = d.agent;
    n.attempts = Math.max(n.attempts, 1);
  },
  node_retry(s, d) {
    const n = node(s, d.node_id, d.capability);
    n.attempts = Math.max(n.attempts, d.attempt ?? 0);
    if (d.agent) n.agent = d.agent;
  },
  node_attempt_failed(s, d) {
    const n = node(s, d.node_id, d.capability);
    n.attempts = Math.max(n.attempts, d.attempt ?? 0);
    n.error = errorText(d.error);
  },
  node_succeeded(s, d) {
    const n = node(s, d.node_id, d.capability);
    n.state = 'ok';
    n.durationMs = d.ms ?? null;
    n.attempts = d.attempts ?? n.attempts;
    n.chars = d.chars ?? null;
    n.error = null;
    if (d.agent) n.agent = d.agent;
  },
  node_output(s, d) {
    node(s, d.node_id, d.capability).output = d.output ?? '';
  },
  node_failed(s, d, at) {
    const n = node(s, d.node_id, d.capability);
    n.state = d.stage === 'binding' ? 'unavailable' : 'failed';
    n.error = errorText(d.error);
    if (n.startedAt !== null && at !== null) n.durationMs = Math.max(0, at - n.startedAt);
  },
  trace_finished(s, d) {
    s.status = d.status ?? s.status;
    s.durationMs = d.duration_ms ?? null;
    s.error = d.error ?? null;
    s.currentLayer = null;
  },
};

/** Folds one event into the run; events at or below the last seq seen are ignored (SSE replays). */
export function applyEvent(state, event) {
  if (typeof event?.seq !== 'number' || event.seq <= state.lastSeq) return false;
  state.lastSeq = event.seq;
  state.events.push(event);
  const at = Date.parse(event.at);
  APPLY[event.type]?.(state, event.data ?? {}, Number.isNaN(at) ? null : at);
  return true;
}

/** A run rebuilt from `GET /api/traces/{id}`: its events, then the stored rows (which have the full texts). */
export function stateFromDetail(detail) {
  const state = createRunState(detail.trace.id);
  for (const event of detail.events ?? []) applyEvent(state, event);
  state.task = detail.trace.task;
  state.status = detail.trace.status;
  state.durationMs = detail.trace.duration_ms ?? state.durationMs;
  state.summary = detail.trace.summary ?? null;
  state.error = detail.trace.error ?? state.error;
  if (detail.plan) {
    state.levels = detail.plan.levels ?? state.levels;
    state.warnings = detail.plan.warnings ?? state.warnings;
    state.degraded = detail.plan.degraded ?? state.degraded;
  }
  for (const row of detail.nodes ?? []) {
    const n = node(state, row.node_id, row.capability);
    n.state = NODE_STATE_OF_STATUS[row.status] ?? n.state;
    n.layer = row.layer ?? n.layer;
    n.purpose = row.purpose ?? n.purpose;
    n.dependsOn = row.depends_on ?? n.dependsOn;
    n.agent = row.agent ?? n.agent;
    n.attempts = row.attempts || n.attempts;
    n.durationMs = row.duration_ms ?? n.durationMs;
    n.chars = row.output_chars ?? n.chars;
    n.context = row.input_context ?? n.context;
    n.output = row.output ?? n.output;
    n.error = row.error ?? n.error;
  }
  return state;
}

/** The run's nodes grouped by layer, in plan order; nodes the plan did not place come last. */
export function nodesByLayer(state) {
  const layers = state.levels.map((ids) => ids.map((id) => state.nodes[id]).filter(Boolean));
  const placed = new Set(state.levels.flat());
  const rest = state.order.filter((id) => !placed.has(id)).map((id) => state.nodes[id]);
  if (rest.length > 0) layers.push(rest);
  return layers;
}

/** True when every node has reached an end state. */
export function allNodesFinished(state) {
  const ids = state.order;
  return ids.length > 0 && ids.every((id) => !['pending', 'running'].includes(state.nodes[id].state));
}
