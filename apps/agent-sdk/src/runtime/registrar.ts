import { type Clock, sleep } from '../clock/index.js';
import {
  err,
  ReachError,
  type RegisterRequest,
  type RegisterResponse,
  type Result,
} from '../protocol/index.js';
import { type BackoffPolicy, backoffDelay } from './backoff.js';
import type { Logger } from './logger.js';
import type { RegistryClient } from './registry-client.js';

/** What a registration attempt loop needs. */
export interface RegistrarDeps {
  client: RegistryClient;
  clock: Clock;
  random: () => number;
  backoff: BackoffPolicy;
  logger: Logger;
}

/** How a registration loop treats a refusal (a 4xx other than 408/429). */
export type RefusalPolicy = 'fail' | 'retry';

/**
 * Registers until the registry confirms, backing off with full jitter while it is unreachable.
 * A refusal ends the loop with the registry's error (`'fail'`) or is retried at the capped backoff
 * (`'retry'`, for re-registration in the background). Aborting `signal` ends it with UNAVAILABLE.
 */
export async function registerUntilConfirmed(
  deps: RegistrarDeps,
  request: () => RegisterRequest,
  refusals: RefusalPolicy,
  signal: AbortSignal,
): Promise<Result<RegisterResponse>> {
  for (let attempt = 0; ; attempt += 1) {
    if (signal.aborted)
      return err(new ReachError('UNAVAILABLE', 'registration stopped: the runtime is stopping'));
    const answer = await deps.client.register(request(), signal);
    if (answer.ok) {
      if (attempt > 0) deps.logger.info('registered after retrying', { attempts: attempt + 1 });
      return answer;
    }
    if (signal.aborted)
      return err(new ReachError('UNAVAILABLE', 'registration stopped: the runtime is stopping'));
    const { error, retryable } = answer.error;
    if (!retryable && refusals === 'fail') return err(error);
    const delay = retryable
      ? backoffDelay(attempt, deps.backoff, deps.random)
      : Math.floor(deps.random() * deps.backoff.maxMs);
    if (!retryable)
      deps.logger.error('registry refused the registration; retrying', { error, retry_in_ms: delay });
    else if (attempt === 0 || attempt % 10 === 0) {
      deps.logger.warn('registration failed; backing off', {
        error,
        attempt: attempt + 1,
        retry_in_ms: delay,
      });
    }
    await sleep(deps.clock, delay, signal);
  }
}
