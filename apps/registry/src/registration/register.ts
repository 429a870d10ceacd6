import {
  type A2ATarget,
  CARD_PATH,
  type Endpoint,
  isReachError,
  publishedCapabilities,
  ReachError,
  type RegisterRequest,
  type RegisterResponse,
} from '@agent-reach/sdk/protocol';
import type { Attributes } from '@opentelemetry/api';
import { hashLeaseToken, newLeaseToken } from '../auth/lease-token.js';
import { KEYS } from '../store/keys.js';
import type { InstanceRecord } from '../store/records.js';
import type { PutOp } from '../store/store.js';
import { withSpan } from '../telemetry/index.js';
import { instanceSkydns } from '../weights/instance-skydns.js';
import { newInstanceId } from './instance-id.js';
import type { RegistrationDeps } from './registration-deps.js';

/** Where the instance serves its agent card. */
export function cardUrlOf(endpoint: Endpoint): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `${endpoint.scheme}://${host}:${endpoint.port}${CARD_PATH}`;
}

/** What a registration by card URL adds: the card's own URL and the A2A interface to call. */
export interface ExternalParts {
  card_url: string;
  a2a: A2ATarget;
}

/** Catalog capabilities that `serves` entries name but the catalog lacks (operation names are free). */
function unknownCatalogEntries(request: RegisterRequest, catalog: ReadonlySet<string>): string[] {
  const unknown = new Set<string>();
  for (const operation of Object.values(request.declaration.capabilities)) {
    for (const capability of operation.serves) if (!catalog.has(capability)) unknown.add(capability);
  }
  return [...unknown].sort();
}

/** Builds the register verb: authorize, check the catalog, then store everything in one commit under a new lease. */
export function createRegister(deps: RegistrationDeps) {
  const {
    config,
    store,
    instances,
    table,
    authority,
    declarations,
    owners,
    identities,
    metrics,
    clock,
    logger,
    skydns,
  } = deps;
  // Ids handed out whose registration has not reached the liveness table yet.
  const reserved = new Set<string>();
  const taken = (id: string) =>
    reserved.has(id) || table.get(id) !== undefined || instances.get(id) !== undefined;

  async function commitRegistration(
    request: RegisterRequest,
    instanceId: string,
    tokenName: string | null,
    external: ExternalParts | undefined,
  ): Promise<RegisterResponse> {
    const { declaration } = request;
    let isNewVersion = false;
    let bindsName = false;
    let lease: string | undefined;
    try {
      if (tokenName !== null) {
        const claimed = await owners.claim(declaration.agent_name, tokenName);
        if (!claimed.ok) throw claimed.error;
        bindsName = claimed.value.binds;
      }
      const checked = await declarations.check(declaration);
      if (!checked.ok) throw checked.error;
      isNewVersion = checked.value.isNew;
      // A dead-man switch, not the deadline: the leader evicts at heartbeat_timeout (liveness/storm-guard.ts).
      const grantedAt = clock.now();
      lease = await store.grantLease(config.leaseTtlMs);
      const leaseToken = newLeaseToken();
      const now = clock.wallNow();
      // One literal, no spread: a spread gives each record a hidden class of its own, and every
      // reader of the record (zone, routing, liveness) pays for it.
      const record: InstanceRecord = {
        instance_id: instanceId,
        agent_name: declaration.agent_name,
        declaration,
        endpoint: request.endpoint,
        card_url: external?.card_url ?? cardUrlOf(request.endpoint),
        card_sha256: request.card_sha256,
        lease_token_hash: hashLeaseToken(leaseToken),
        lease_id: lease,
        registered_at: now,
      };
      if (external) {
        record.a2a = external.a2a;
        record.external = true;
      }
      const value = JSON.stringify(record);
      // The store may keep `record` itself (the instance cache holds it anyway), not its text.
      const puts: PutOp[] = [{ key: KEYS.instance(instanceId), value, lease, source: record }];
      // Published with the declaration's weight until the leader publishes a computed one.
      if (skydns) {
        for (const entry of instanceSkydns(record, skydns, 'all'))
          puts.push({ key: entry.key, value: entry.value, lease });
      }
      puts.push(identities.entry(instanceId, declaration.agent_name, record.lease_token_hash));
      if (isNewVersion) puts.push(declarations.entry(declaration, now, tokenName));
      if (bindsName && tokenName !== null) puts.push(owners.entry(declaration.agent_name, tokenName, now));
      instances.expectWrite(record, value);
      const committed = await store.commit({ puts });
      if (!committed.ok) {
        throw new ReachError(
          'STORE_UNAVAILABLE',
          'the new lease vanished before the registration was stored; retry',
        );
      }
      const entry = table.track(record, true);
      if (grantedAt > entry.leaseKeptMono) entry.leaseKeptMono = grantedAt;
      return {
        instance_id: instanceId,
        lease_token: leaseToken,
        heartbeat_interval_ms: config.heartbeatIntervalMs,
        heartbeat_timeout_ms: config.heartbeatTimeoutMs,
        declaration_version: declaration.version,
      };
    } catch (error) {
      instances.forgetWrite(instanceId);
      // Nothing is half-stored: whatever was bound to the lease goes with it.
      if (lease !== undefined) {
        await store
          .revokeLease(lease)
          .catch((cause: unknown) => logger.error({ err: cause, lease }, 'revoke failed'));
      }
      if (isNewVersion) declarations.release(declaration);
      if (bindsName) owners.release(declaration.agent_name);
      if (isReachError(error)) throw error;
      throw new ReachError('STORE_UNAVAILABLE', 'the store did not accept the registration; retry', {
        cause: error,
      });
    }
  }

  // The id a re-registration held before its lease ran out, when it proves it and nobody holds the id.
  async function previousIdIfFree(request: RegisterRequest): Promise<string | undefined> {
    const previous = request.previous;
    if (!previous || taken(previous.instance_id)) return undefined;
    if (!(await identities.proves(previous, request.declaration.agent_name))) return undefined;
    // Checked again after the store read: another registration may have taken it meanwhile.
    if (taken(previous.instance_id)) return undefined;
    logger.info({ instance_id: previous.instance_id }, 'instance re-registered under its previous id');
    return previous.instance_id;
  }

  async function register(
    request: RegisterRequest,
    authorization?: string,
    external?: ExternalParts,
  ): Promise<RegisterResponse> {
    try {
      const granted = authority.authorize(
        authorization,
        publishedCapabilities(request.declaration),
        request.declaration.agent_name,
      );
      if (!granted.ok) throw granted.error;
      const unknown = unknownCatalogEntries(request, config.catalog);
      if (unknown.length > 0) {
        throw new ReachError(
          'UNKNOWN_CAPABILITY',
          `not in the capability catalog: ${unknown.join(', ')} (known: ${[...config.catalog].sort().join(', ')})`,
          { data: { unknown } },
        );
      }
      const instanceId =
        (await previousIdIfFree(request)) ?? newInstanceId(request.declaration.agent_name, taken);
      reserved.add(instanceId);
      try {
        const response = await commitRegistration(request, instanceId, granted.value.tokenName, external);
        metrics.registrations.inc({ result: 'ok' });
        return response;
      } finally {
        reserved.delete(instanceId);
      }
    } catch (error) {
      metrics.registrations.inc({ result: isReachError(error) ? error.code : 'INTERNAL' });
      throw error;
    }
  }

  const tracer = deps.tracer;
  if (tracer === undefined) return register;
  return (request: RegisterRequest, authorization?: string, external?: ExternalParts) =>
    withSpan(
      tracer,
      'reach.register',
      { attributes: registerAttributes(request, external) },
      async (span) => {
        try {
          const response = await register(request, authorization, external);
          span.setAttribute('reach.instance_id', response.instance_id);
          return response;
        } catch (error) {
          span.setAttribute('reach.error_code', isReachError(error) ? error.code : 'INTERNAL');
          throw error;
        }
      },
    );
}

/** What a `reach.register` span says about its registration. */
function registerAttributes(request: RegisterRequest, external: ExternalParts | undefined): Attributes {
  return {
    'reach.agent_name': request.declaration.agent_name,
    'reach.declaration_version': request.declaration.version,
    'reach.external': external !== undefined,
  };
}
