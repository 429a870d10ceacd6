import type { FailureClass } from '@agent-reach/sdk/protocol';
import type { Candidate } from '../discovery/index.js';
import type { TraceEventInput } from '../traces/events.js';
import type { NodeInsert } from '../traces/schema.js';

/** The node columns execution fills in as a node runs. */
export type NodePatch = Partial<
  Pick<
    NodeInsert,
    | 'status'
    | 'agent'
    | 'instance_id'
    | 'endpoint'
    | 'binding'
    | 'attempts'
    | 'started_at'
    | 'finished_at'
    | 'duration_ms'
    | 'output_chars'
    | 'input_context'
    | 'output'
    | 'error'
    | 'depends_on'
    | 'layer'
    | 'parallel_group'
    | 'purpose'
    | 'in_flight'
  >
>;

/** One run's record in the trace store: every event and node change goes through it. */
export interface RunLog {
  event(event: TraceEventInput): Promise<void>;
  node(nodeId: string, patch: NodePatch): Promise<void>;
  /** Writes everything queued now (before a call that must not be lost, e.g. a non-idempotent one). */
  flush(): Promise<void>;
}

/** What one attempt sends to an agent (the invoke body, without transport details). */
export interface AttemptRequest {
  request_id: string;
  capability: string;
  input: unknown;
  context: unknown;
  deadline_ms: number;
  caller: string;
}

/** How one attempt ended. `acked` says whether the agent had accepted the request. */
export type AttemptOutcome =
  | { ok: true; output: unknown; ms: number; instanceId?: string }
  | {
      ok: false;
      failure: FailureClass;
      code: string;
      message: string;
      acked: boolean;
      /** The agent's own verdict on an error line; absent for transport failures. */
      retryable?: boolean;
      ms: number;
    };

/** One attempt as it ended, for metrics and outcome reports. */
export interface AttemptReport {
  outcome: AttemptOutcome;
  target: Candidate;
  requestId: string;
  capability: string;
  /** 1 for the primary, 2 for the first alternate, … */
  attempt: number;
  /** True when nothing more is tried for the node after this attempt (and it was not cancelled). */
  final: boolean;
}

/** Calls one candidate once; the caller decides about the next one. */
export type CallAttempt = (
  target: Candidate,
  request: AttemptRequest,
  options: { traceparent?: string; signal?: AbortSignal },
) => Promise<AttemptOutcome>;
