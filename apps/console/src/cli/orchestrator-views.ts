// The orchestrator's JSON answers as the CLI reads them. The console cannot import the orchestrator
// (ARCHITECTURE §1: it only calls the APIs), so these name just the fields it shows.

/** A trace row of `GET /api/traces` (dates are ISO strings on the wire). */
export interface TraceRowView {
  id: string;
  task: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  summary: string | null;
  error: string | null;
  last_seq: number;
}

/** `GET /api/traces`. */
export interface TracePage {
  items: TraceRowView[];
  next_cursor: string | null;
}

/** A node row of a trace. */
export interface NodeRowView {
  node_id: string;
  capability: string;
  depends_on: string[];
  layer: number | null;
  purpose: string | null;
  status: string;
  agent: string | null;
  instance_id: string | null;
  attempts: number;
  duration_ms: number | null;
  output_chars: number | null;
  input_context: string | null;
  output: string | null;
  error: string | null;
}

/** One stored event. */
export interface TraceEventView {
  trace_id: string;
  seq: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/** `GET /api/traces/{id}`. */
export interface TraceDetail {
  trace: TraceRowView;
  plan: { levels: string[][]; warnings: string[]; degraded: boolean; provider: string | null } | null;
  nodes: NodeRowView[];
  events: TraceEventView[];
}

/** `POST /api/run`. */
export interface RunSummary {
  trace_id: string;
  status: string;
  summary: string;
  duration_ms: number;
  plan_degraded: boolean;
  nodes: Array<{ node_id: string; capability: string; status: string }>;
  error?: string;
}

/** One candidate of a capability in `GET /api/discovery`. */
export interface CandidateView {
  instance: string;
  agent_name: string;
  endpoint: string;
  priority: number;
  weight: number;
  health: string;
}

/** `GET /api/discovery`. */
export interface DiscoveryView {
  zone: string;
  dns_server: string;
  discovered_at: string;
  duration_ms: number;
  capabilities: Record<
    string,
    {
      capability: string;
      source: string;
      available: boolean;
      reason: string | null;
      candidates: CandidateView[];
      failed: Array<{
        instance: string;
        endpoint: string | null;
        stage: string;
        reason: string;
        message: string;
      }>;
      description?: string;
      described_by?: string;
      tags?: string[];
      builtin?: boolean;
      in_index?: boolean;
      providers?: string[];
    }
  >;
  stats: Record<string, number>;
  totals: Record<string, number>;
}
