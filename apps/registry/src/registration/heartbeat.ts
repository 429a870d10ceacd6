import { type HeartbeatRequest, type HeartbeatResponse, ReachError } from '@agent-reach/sdk/protocol';
import { bearerToken, leaseTokenMatches } from '../auth/lease-token.js';
import type { LivenessEntry } from '../liveness/liveness-table.js';
import type { RegistrationDeps } from './registration-deps.js';
import { resolveInstance } from './resolve-instance.js';

/** The answer for an instance the registry does not know (any more): the SDK re-registers on it. */
export function unknownInstance(instanceId: string): ReachError {
  return new ReachError(
    'UNKNOWN_INSTANCE',
    `instance ${instanceId} is not registered (its lease expired or it was removed); register again`,
    { data: { instance_id: instanceId } },
  );
}

/**
 * Builds the heartbeat verb: lease token, strictly newer seq, and a keep-alive of the instance's lease
 * only when this replica's last one is older than `leaseRefreshMs`. The lease is a dead-man switch, not
 * the deadline (the leader evicts at heartbeat_timeout from the liveness table), so most heartbeats never
 * touch the store.
 */
export function createHeartbeat(deps: RegistrationDeps) {
  const { config, store, table, metrics, clock } = deps;
  const answer: HeartbeatResponse = {
    status: 'ok',
    state: 'healthy',
    heartbeat_interval_ms: config.heartbeatIntervalMs,
  };

  function accept(entry: LivenessEntry, request: HeartbeatRequest): HeartbeatResponse {
    table.beat(entry, request.load);
    deps.facts?.note(entry);
    metrics.countHeartbeat('accepted');
    return answer;
  }

  return async function heartbeat(
    instanceId: string,
    request: HeartbeatRequest,
    authorization: string | undefined,
  ): Promise<HeartbeatResponse> {
    const token = bearerToken(authorization);
    if (token === undefined) {
      metrics.countHeartbeat('invalid_token');
      throw new ReachError('LEASE_TOKEN_INVALID', 'heartbeats need Authorization: Bearer <lease_token>');
    }
    const entry = table.get(instanceId) ?? (await resolveInstance(deps, instanceId));
    if (!entry || entry.deregistering) {
      metrics.countHeartbeat('unknown');
      throw unknownInstance(instanceId);
    }
    if (!leaseTokenMatches(token, entry.tokenHash)) {
      metrics.countHeartbeat('invalid_token');
      throw new ReachError(
        'LEASE_TOKEN_INVALID',
        `the lease token does not belong to instance ${instanceId}`,
      );
    }
    const previous = entry.lastSeq;
    if (previous !== undefined && request.seq <= previous) {
      metrics.countHeartbeat('stale');
      throw new ReachError('STALE_HEARTBEAT', `seq ${request.seq} is not newer than ${previous}; ignored`, {
        data: { seq: request.seq, last_seq: previous },
      });
    }
    // Claim the seq before waiting on the store, so a concurrent replay of it is refused.
    entry.lastSeq = request.seq;
    const startedAt = clock.now();
    // The lease outlives the leader's deadline by at least the refresh window: no keep-alive due yet.
    // (A lease another replica revoked is seen through the watch, which removes the entry.)
    if (startedAt - entry.leaseKeptMono < config.leaseRefreshMs) return accept(entry, request);
    let kept: Awaited<ReturnType<typeof store.keepAlive>>;
    try {
      metrics.countKeepAlive('heartbeat');
      kept = await store.keepAlive(entry.leaseId);
    } catch (cause) {
      if (entry.lastSeq === request.seq) entry.lastSeq = previous;
      // The agent is alive, only the store is not (etcd without quorum expires no lease either): it
      // stays healthy, so weights published once the store is back do not demote it.
      table.beat(entry, request.load);
      deps.facts?.note(entry);
      throw new ReachError('STORE_UNAVAILABLE', 'the store did not take the keep-alive; retry', { cause });
    }
    if (!kept.ok) {
      table.remove(instanceId);
      metrics.countHeartbeat('unknown');
      throw unknownInstance(instanceId);
    }
    // Counted from before the call: etcd restarted the TTL after it began.
    if (startedAt > entry.leaseKeptMono) entry.leaseKeptMono = startedAt;
    return accept(entry, request);
  };
}
