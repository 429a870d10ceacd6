import { type A2ATarget, sdkAgentTarget } from '../protocol/card.js';
import type { Endpoint } from '../protocol/registration.js';
import type { RouteCandidate } from '../protocol/route.js';

/** One agent instance a call may go to, from the registry's route answer or from DNS. */
export interface ReachTarget {
  instance_id: string;
  agent_name: string;
  /** The operation to invoke (sent as `capability`). */
  operation: string;
  endpoint: Pick<Endpoint, 'host' | 'port' | 'scheme'>;
  /** Where and how to call it over A2A (an SDK agent's JSON-RPC binding unless the registry says otherwise). */
  a2a: A2ATarget;
  /** The agent's declared idempotency; decides fallback after an ack when the caller does not say. */
  idempotent: boolean;
  source: 'registry' | 'dns';
  /** The registry's score; absent for DNS targets. */
  score?: number;
}

/** A route candidate as a target. */
export function targetFromCandidate(candidate: RouteCandidate): ReachTarget {
  return {
    instance_id: candidate.instance_id,
    agent_name: candidate.agent_name,
    operation: candidate.operation,
    endpoint: candidate.endpoint,
    a2a: candidate.a2a ?? sdkAgentTarget(candidate.endpoint),
    idempotent: candidate.idempotent,
    source: 'registry',
    score: candidate.score,
  };
}

/** The agent name inside an instance label `<agent>-<4 or 8 hex>`; the label itself otherwise. */
export function agentNameOfInstance(instanceId: string): string {
  return instanceId.replace(/-(?:[0-9a-f]{4}|[0-9a-f]{8})$/, '');
}
