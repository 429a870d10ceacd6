import { ERROR_CODES, type ErrorCode, ReachError } from '../protocol/errors.js';
import type { FailureClass } from '../protocol/route.js';
import type { AttemptRecord, LaneResult } from './fallback-chain.js';

/** One failed target of a call, as the error's data lists it. */
export interface TargetFailure {
  instance_id: string;
  agent_name: string;
  failure: FailureClass;
  acked: boolean;
  message: string;
  code?: string;
}

const BY_CLASS: Record<FailureClass, ErrorCode> = {
  connect: 'UNAVAILABLE',
  ack_timeout: 'UNAVAILABLE',
  http_5xx: 'UNAVAILABLE',
  stream_broken: 'UNAVAILABLE',
  execution_timeout: 'TIMEOUT',
  overloaded: 'OVERLOADED',
  agent_error: 'INTERNAL',
  cancelled: 'CANCELLED',
};

/** The error code a failed attempt stands for: the agent's own code when it is one of ours. */
export function codeOfAttempt(attempt: AttemptRecord | undefined): ErrorCode {
  if (!attempt?.failure) return 'TIMEOUT';
  if (attempt.failure === 'agent_error' && (ERROR_CODES as readonly string[]).includes(attempt.code ?? '')) {
    return attempt.code as ErrorCode;
  }
  return BY_CLASS[attempt.failure];
}

function failureOf(attempt: AttemptRecord): TargetFailure {
  return {
    instance_id: attempt.instance_id,
    agent_name: attempt.agent_name,
    failure: attempt.failure ?? 'agent_error',
    acked: attempt.acked,
    message: attempt.message ?? '',
    ...(attempt.code ? { code: attempt.code } : {}),
  };
}

/**
 * The error of a failed call: the code of the first failing lane's last attempt, and in `data` every
 * failed target (`failures`), every attempt, and whether the retry budget stopped a fallback.
 */
export function callError(
  requestId: string,
  what: string,
  lanes: LaneResult[],
  attempts: AttemptRecord[],
): ReachError {
  const failed = lanes.filter((lane): lane is Extract<LaneResult, { ok: false }> => !lane.ok);
  const failures = attempts.filter((a) => !a.ok && a.failure !== 'cancelled').map(failureOf);
  const primary = failed.find((lane) => lane.last?.failure !== 'cancelled')?.last ?? failed[0]?.last;
  const budgetExhausted = failed.some((lane) => lane.budgetExhausted);
  const summary = failures.map((f) => `${f.instance_id} (${f.failure}: ${f.message})`).join('; ');
  const reason = primary ? summary || `${primary.failure}` : 'the deadline passed before any attempt';
  return new ReachError(
    codeOfAttempt(primary),
    `${what}: ${reason}${budgetExhausted ? '; retry budget exhausted' : ''}`,
    {
      data: { request_id: requestId, failures, attempts, budget_exhausted: budgetExhausted },
    },
  );
}
