import type { Clock } from '@agent-reach/sdk/clock';
import {
  type ExternalAgentRequest,
  type ExternalAgentResponse,
  isReachError,
} from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import type { TokenAuthority } from '../auth/token-authority.js';
import type { RegistrationVerbs } from '../registration/index.js';
import type { CardFetch, CardFetchLimits } from './card-fetch.js';
import { externalRegistration } from './external-card.js';

/** What the external-agent service works with. */
export interface ExternalAgentsDeps {
  verbs: Pick<RegistrationVerbs, 'register' | 'heartbeat' | 'deregister'>;
  /** Checked before any card is fetched: an unknown caller never makes the registry fetch a URL. */
  authority: Pick<TokenAuthority, 'authorize'>;
  fetchCard: CardFetch;
  clock: Clock;
  logger: Logger;
  /** The registry's heartbeat interval: one probe per interval. */
  probeIntervalMs: number;
  limits: CardFetchLimits;
}

/** One agent the registry keeps alive on its behalf. */
interface Probed {
  instanceId: string;
  cardUrl: string;
  sha256: string;
  leaseToken: string;
  seq: number;
  stop: () => void;
  busy: boolean;
}

/**
 * Registers A2A agents not built with the SDK by their card URL and probes them on their behalf: a
 * probe that fetches the same card bytes is a heartbeat (same verb, same states and storm protection);
 * a failed probe is a missed heartbeat; a card whose digest changed is a lie, and the agent is
 * deregistered at once (its DNS records go with the lease).
 */
export class ExternalAgents {
  private readonly probed = new Map<string, Probed>();

  constructor(private readonly deps: ExternalAgentsDeps) {}

  /** Agents currently probed. */
  get size(): number {
    return this.probed.size;
  }

  /** Fetches and validates the card, registers the agent and starts probing it; nothing is stored on failure. */
  async register(
    request: ExternalAgentRequest,
    authorization: string | undefined,
  ): Promise<ExternalAgentResponse> {
    const caller = this.deps.authority.authorize(authorization, []);
    if (!caller.ok) throw caller.error;
    const fetched = await this.deps.fetchCard(request.card_url, this.deps.limits);
    if (!fetched.ok) throw fetched.error;
    const mapped = await externalRegistration(request, fetched.value.bytes, fetched.value.sha256);
    if (!mapped.ok) throw mapped.error;
    const { declaration, endpoint, a2a, mapping } = mapped.value;
    const registered = await this.deps.verbs.register(
      { declaration, endpoint, card_sha256: fetched.value.sha256 },
      authorization,
      { card_url: request.card_url, a2a },
    );
    const probed: Probed = {
      instanceId: registered.instance_id,
      cardUrl: request.card_url,
      sha256: fetched.value.sha256,
      leaseToken: registered.lease_token,
      seq: 0,
      busy: false,
      stop: () => undefined,
    };
    probed.stop = this.deps.clock.every(this.deps.probeIntervalMs, () => void this.probe(probed));
    this.probed.set(probed.instanceId, probed);
    this.deps.logger.info(
      { instance_id: probed.instanceId, card_url: request.card_url, capabilities: mapping },
      'external agent registered; probing its card',
    );
    return {
      instance_id: registered.instance_id,
      agent_name: declaration.agent_name,
      capabilities: mapping,
      card_url: request.card_url,
      card_sha256: fetched.value.sha256,
      a2a,
      declaration_version: registered.declaration_version,
      probe_interval_ms: this.deps.probeIntervalMs,
      lease_token: registered.lease_token,
    };
  }

  /** Stops every probe (the registrations run out with their leases). */
  close(): void {
    for (const probed of this.probed.values()) probed.stop();
    this.probed.clear();
  }

  private forget(probed: Probed): void {
    probed.stop();
    this.probed.delete(probed.instanceId);
  }

  /** One probe: the card's bytes unchanged → a heartbeat; unreachable → nothing (a missed heartbeat). */
  private async probe(probed: Probed): Promise<void> {
    if (probed.busy) return;
    probed.busy = true;
    try {
      const limits = {
        ...this.deps.limits,
        timeoutMs: Math.min(this.deps.limits.timeoutMs, this.deps.probeIntervalMs),
      };
      const fetched = await this.deps.fetchCard(probed.cardUrl, limits);
      if (!fetched.ok) {
        this.deps.logger.debug(
          { instance_id: probed.instanceId, err: fetched.error.message },
          'external probe failed',
        );
        return;
      }
      const authorization = `Bearer ${probed.leaseToken}`;
      if (fetched.value.sha256 !== probed.sha256) {
        this.deps.logger.warn(
          { instance_id: probed.instanceId, registered: probed.sha256, served: fetched.value.sha256 },
          'external agent serves a different card than it registered with; dropping it',
        );
        this.forget(probed);
        await this.deps.verbs.deregister(probed.instanceId, authorization);
        return;
      }
      probed.seq += 1;
      await this.deps.verbs.heartbeat(
        probed.instanceId,
        { seq: probed.seq, load: { in_flight: 0, capacity: 1, queue: 0 } },
        authorization,
      );
    } catch (error) {
      // The instance is gone (lease expired, deregistered): nothing left to keep alive.
      if (
        isReachError(error) &&
        (error.code === 'UNKNOWN_INSTANCE' || error.code === 'LEASE_TOKEN_INVALID')
      ) {
        this.forget(probed);
        return;
      }
      if (!isReachError(error))
        this.deps.logger.error({ err: error, instance_id: probed.instanceId }, 'external probe');
    } finally {
      probed.busy = false;
    }
  }
}
