import type { Candidate } from '../discovery/index.js';
import type { AttemptOutcome } from './ports.js';

/**
 * Whether another candidate may be tried after a failed attempt — the SDK fallback chain's rule
 * (ARCHITECTURE section 6): never after a cancel; before the ack the agent never started, so always;
 * after it only for idempotent operations whose error the agent did not call final.
 */
export function mayTryNext(failed: Extract<AttemptOutcome, { ok: false }>, target: Candidate): boolean {
  if (failed.failure === 'cancelled') return false;
  if (!failed.acked) return true;
  return target.idempotent && failed.retryable !== false;
}
