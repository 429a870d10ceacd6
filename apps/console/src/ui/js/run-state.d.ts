/** How the UI shows a node. */
export type NodeState = 'pending' | 'running' | 'ok' | 'failed' | 'unavailable' | 'skipped';

/** One node of a run as the UI draws it. */
export interface RunNode {
  id: string;
  capability: string;
  purpose: string;
  dependsOn: string[];
  layer: number | null;
  state: NodeState;
  agent: string | null;
  attempts: number;
  durationMs: number | null;
  /** Wall-clock ms of `node_started`. */
  startedAt: number | null;
  chars: number | null;
  context: string | null;
  output: string | null;
  error: string | null;
}

/** A trace event as the API sends it. */
export interface RunEvent {
  trace_id?: string;
  seq: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/** A run folded from its events. */
export interface RunState {
  traceId: string;
  task: string | null;
  provider: string | null;
  status: string;
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
  events: RunEvent[];
}

/** A fresh, empty run. */
export function createRunState(traceId: string): RunState;
/** Folds one event into the run; false when it was a replay (seq already seen). */
export function applyEvent(state: RunState, event: RunEvent): boolean;
/** A run rebuilt from `GET /api/traces/{id}`. */
export function stateFromDetail(detail: unknown): RunState;
/** The run's nodes grouped by layer, in plan order; unplaced nodes last. */
export function nodesByLayer(state: RunState): RunNode[][];
/** True when every node has reached an end state. */
export function allNodesFinished(state: RunState): boolean;
