import type { NodeOutcome } from '../deliverables/index.js';
import { Plan } from '../plan/index.js';
import type { ClaimedRun, InFlight, TraceDetail } from '../traces/index.js';
import type { NodeStatus } from '../traces/status.js';

/** Node statuses a resumed run keeps as they are: the node ended (an `unavailable` one may bind now). */
const ENDED: ReadonlySet<NodeStatus> = new Set(['succeeded', 'failed', 'interrupted', 'skipped']);

/** Where a run taken over from its record goes on from. */
export interface ResumePoint {
  /** The orchestrator resuming it. */
  by: string;
  previousOwner: string | null;
  resumes: number;
  /** The stored plan; null when the previous owner died before planning (the run starts over). */
  plan: { plan: Plan; levels: string[][]; degraded: boolean } | null;
  /** Nodes that ended, with their outputs: reused, never called again. */
  done: Map<string, NodeOutcome>;
  /**
   * Nodes that were running: re-sent with the same request_id — to the instance recorded as in flight
   * when there is one (always, for a non-idempotent call), else along the node's fresh binding.
   */
  inFlight: Map<string, InFlight | null>;
  /** Nodes that had not started (or whose call had not gone out). */
  pending: string[];
}

/** Reads a run's record into the point where `by` resumes it. */
export function resumePoint(detail: TraceDetail, claim: ClaimedRun, by: string): ResumePoint {
  const parsed = detail.plan === null ? null : Plan.safeParse(detail.plan.normalized);
  const plan =
    parsed?.success === true
      ? { plan: parsed.data, levels: detail.plan!.levels, degraded: detail.plan!.degraded }
      : null;
  const done = new Map<string, NodeOutcome>();
  const inFlight = new Map<string, InFlight | null>();
  const pending: string[] = [];
  if (plan !== null) {
    const rows = new Map(detail.nodes.map((n) => [n.node_id, n]));
    for (const node of plan.plan.nodes) {
      const row = rows.get(node.id);
      if (row !== undefined && ENDED.has(row.status)) {
        done.set(node.id, {
          node_id: node.id,
          capability: node.capability,
          status: row.status,
          output: row.status === 'succeeded' ? (row.output ?? '') : null,
        });
      } else if (row?.status === 'running') {
        inFlight.set(node.id, row.in_flight);
      } else {
        pending.push(node.id);
      }
    }
  }
  return { by, previousOwner: claim.previous_owner, resumes: claim.resumes, plan, done, inFlight, pending };
}
