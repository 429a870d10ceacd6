import { ReachError } from '@agent-reach/sdk/protocol';
import { bearerToken, leaseTokenMatches } from '../auth/lease-token.js';
import { unknownInstance } from './heartbeat.js';
import type { RegistrationDeps } from './registration-deps.js';
import { resolveInstance } from './resolve-instance.js';

/** The answer to a deregistration. */
export interface DeregisterResponse {
  instance_id: string;
  state: 'deregistered';
}

/** Builds the deregister verb: the lease token, then one revoke that removes every key of the instance at once. */
export function createDeregister(deps: RegistrationDeps) {
  const { store, metrics, identities, logger } = deps;
  return async function deregister(
    instanceId: string,
    authorization: string | undefined,
  ): Promise<DeregisterResponse> {
    const token = bearerToken(authorization);
    if (token === undefined) {
      throw new ReachError('LEASE_TOKEN_INVALID', 'deregistering needs Authorization: Bearer <lease_token>');
    }
    const entry = await resolveInstance(deps, instanceId);
    if (!entry || entry.deregistering) throw unknownInstance(instanceId);
    if (!leaseTokenMatches(token, entry.tokenHash)) {
      throw new ReachError(
        'LEASE_TOKEN_INVALID',
        `the lease token does not belong to instance ${instanceId}`,
      );
    }
    entry.deregistering = true;
    try {
      await store.revokeLease(entry.leaseId);
    } catch (cause) {
      entry.deregistering = false;
      throw new ReachError('STORE_UNAVAILABLE', 'the store did not take the deregistration; retry', {
        cause,
      });
    }
    metrics.deregistrations.inc();
    // A graceful end: nothing will come back for this id (the leader's collection would remove it too).
    await identities
      .forget(instanceId)
      .catch((cause: unknown) =>
        logger.warn({ err: cause, instance_id: instanceId }, 'identity not removed'),
      );
    return { instance_id: instanceId, state: 'deregistered' };
  };
}
