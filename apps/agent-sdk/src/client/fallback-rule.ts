import type { FailureClass } from '../protocol/route.js';

/** The part of a failed attempt the fallback rule looks at. */
export interface FailedAttempt {
  failure: FailureClass;
  /** Whether the agent had acknowledged the request when the attempt ended. */
  acked: boolean;
  /** The agent's own verdict on an error line; absent for transport failures. */
  retryable?: boolean;
}

/** The call-level facts the fallback rule needs. */
export interface MoveOnContext {
  /** Whether the operation may run twice: the call's override, else the target's declaration. */
  idempotent: boolean;
  /** @default true */
  fallbackEnabled?: boolean;
  /** The caller has given up (its signal aborted). @default false */
  aborted?: boolean;
  /** Milliseconds left before the caller's deadline; absent when there is none. */
  remainingMs?: number;
}

/**
 * Whether another target may be tried after a failed attempt (ARCHITECTURE section 6): never after a
 * cancel; before the ack the agent never started, so always; after it only while time is left, for
 * idempotent operations whose error the agent did not call final.
 */
export function mayMoveOn(failed: FailedAttempt, ctx: MoveOnContext): boolean {
  if (ctx.fallbackEnabled === false || ctx.aborted === true || failed.failure === 'cancelled') return false;
  if (!failed.acked) return true;
  if (ctx.remainingMs !== undefined && ctx.remainingMs <= 0) return false;
  return ctx.idempotent && failed.retryable !== false;
}
