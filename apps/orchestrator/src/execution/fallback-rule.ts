import type { Candidate } from '../discovery/index.js';
import type { AttemptOutcome } from './ports.js';

/**
 * Whether another candidate may be tried after a failed attempt (ARCHITECTURE section 6): before the
 * ack the agent never started, so always; after it, only for idempotent operations; an agent that
 * answered with a non-retryable error (bad input) would fail the same way elsewhere.
 */
export function mayTryNext(failed: Extract<AttemptOutcome, { ok: false }>, target: Candidate): boolean {
  if (!failed.acked) return true;
  if (failed.failure === 'agent_error' && !failed.retryable) return false;
  return target.idempotent;
}
