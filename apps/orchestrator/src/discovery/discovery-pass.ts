import type { DnsClient, DnsQueryType, DnsResponse } from '@agent-reach/sdk/dns';
import {
  type AgentCard,
  CARD_PATH,
  CapabilityId,
  capabilityQueryNames,
  cardExtension,
  cardSkills,
  DnsNames,
  err,
  indexedCapabilities,
  ok,
  ownerName,
  ReachError,
  type Result,
} from '@agent-reach/sdk/protocol';
import type { CardCache } from './card-cache.js';
import {
  type Candidate,
  type CapabilityResolution,
  type DiscoveryStats,
  emptyStats,
  type FailedCandidate,
} from './discovery-view.js';
import type { DnsAnswerCache } from './dns-answer-cache.js';
import {
  type DnsTarget,
  firstAddress,
  type RejectedRecord,
  srvTargets,
  svcbTargets,
  txtStrings,
} from './dns-records.js';
import type { HealthProber } from './health-probe.js';
import { orderCandidates, type Random } from './selection.js';

/** What one pass needs: DNS, the zone, the card cache and the health prober. */
export interface PassDeps {
  dns: DnsClient;
  zone: string;
  cards: CardCache;
  health: HealthProber;
  /** Answers kept across passes within their TTL; every answer asked is put here. */
  answers?: DnsAnswerCache;
  /** Read kept answers instead of asking (a run's discovery). @default false */
  reuseAnswers?: boolean;
  /**
   * Verify (card, then /health) a capability's DNS targets in selection order only until this many
   * are healthy; the rest are left unchecked. @default Infinity (every target)
   */
  healthyEnough?: number;
  /** The draw that orders targets when only some are verified. @default Math.random */
  random?: Random;
  /** Targets read from an answer, kept with the answer object (a repeated answer is the same object). */
  targetsByAnswer?: WeakMap<DnsResponse, DnsTargets>;
  /** Told of each candidate ignored because its card says nothing it does (no usable skill). */
  onIgnoredCard?: (ignored: FailedCandidate & { capability: string; card_sha256: string }) => void;
}

/** The targets an answer lists and the records it lists that cannot be used. */
export type DnsTargets = { targets: DnsTarget[]; rejected: RejectedRecord[] };

/** A capability's resolution: the view plus the usable candidates with their cards. */
export interface ResolvedCapability {
  view: CapabilityResolution;
  candidates: Candidate[];
}

type Checked =
  | { kind: 'failed'; failure: FailedCandidate }
  | { kind: 'skipped' }
  | { kind: 'ok'; candidate: Candidate };

type Tier = DnsTargets & { source: 'svcb' | 'role_srv' | 'generic_srv_filtered' };

function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

function failedFrom(
  t: DnsTarget,
  stage: FailedCandidate['stage'],
  reason: string,
  message: string,
): FailedCandidate {
  return {
    instance: t.instance,
    endpoint: t.address === null ? null : hostPort(t.address, t.port),
    stage,
    reason,
    message,
  };
}

/** A cached card's extension is read once, not on every discovery (it is a schema parse). */
const extensions = new WeakMap<AgentCard, ReturnType<typeof cardExtension>>();

function extensionOf(card: AgentCard): ReturnType<typeof cardExtension> {
  let ext = extensions.get(card);
  if (ext === undefined) {
    ext = cardExtension(card);
    extensions.set(card, ext);
  }
  return ext;
}

/**
 * Whether a card says what its agent does: an SDK agent's card (it carries the Reach extension) needs a
 * skill with a capability id; anyone else's A2A agent needs a skill at all, since the registry mapped its
 * skill ids (`upper-echo` → `writing`) when it was registered. One read per cached card.
 */
const describesSomething = new WeakMap<AgentCard, boolean>();

function hasUsableSkill(card: AgentCard, reachAgent: boolean): boolean {
  let has = describesSomething.get(card);
  if (has === undefined) {
    has = reachAgent ? cardSkills(card).length > 0 : card.skills.length > 0;
    describesSomething.set(card, has);
  }
  return has;
}

/** The card URL to use: only ever on the address and port DNS gave for the instance. */
function cardUrlFor(t: DnsTarget, address: string): string | null {
  const base = `http://${hostPort(address, t.port)}`;
  if (t.cardUrl === null) return `${base}${CARD_PATH}`;
  try {
    const url = new URL(t.cardUrl);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return url.hostname.replace(/^\[|\]$/g, '') === address && port === t.port ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * One discovery pass over the catalog: every DNS name is asked at most once per pass
 * (the generic `_agent._tcp` and A lookups are shared), so the cost follows capabilities, not replicas.
 */
export class DiscoveryPass {
  readonly tally: DiscoveryStats = emptyStats();
  private readonly asked = new Map<string, Promise<Result<DnsResponse>>>();

  constructor(private readonly deps: PassDeps) {}

  /** The capabilities the zone's DNS index (`_index._agents` TXT) lists now; NXDOMAIN/NODATA is none. */
  async indexed(): Promise<Result<string[]>> {
    const res = await this.ask(this.indexName(), 'TXT');
    if (!res.ok) return res;
    if (res.value.rcode !== 'NOERROR' && res.value.rcode !== 'NXDOMAIN')
      return err(new ReachError('UNAVAILABLE', `DNS answered ${res.value.rcode} for ${this.indexName()}`));
    // Only entries that are capability ids: a malformed index adds nothing odd to a catalog.
    const listed = indexedCapabilities(txtStrings(res.value.answers).flat());
    return ok([...new Set(listed.filter((id) => CapabilityId.safeParse(id).success))].sort());
  }

  /** The index's owner name in this zone. */
  indexName(): string {
    return ownerName(DnsNames.index, this.deps.zone);
  }

  /** Resolves one capability: SVCB, then role SRV, then generic SRV filtered by cards. */
  async resolve(capability: string): Promise<ResolvedCapability> {
    const owner = capabilityQueryNames(capability, this.deps.zone);
    const names: Array<[string, DnsQueryType, Tier['source']]> = [
      [owner.svcb, 'SVCB', 'svcb'],
      [owner.roleSrv, 'SRV', 'role_srv'],
      [owner.genericSrv, 'SRV', 'generic_srv_filtered'],
    ];
    const queries: string[] = [];
    const dnsFailures: FailedCandidate[] = [];
    let answered = false;
    for (const [name, type, source] of names) {
      queries.push(`${name} ${type}`);
      const res = await this.ask(name, type);
      if (!res.ok) {
        dnsFailures.push({
          instance: name,
          endpoint: null,
          stage: 'dns',
          reason: 'dns_unavailable',
          message: res.error.message,
        });
        break; // a silent server: the next names would wait on the same silence
      }
      answered = true;
      const tier: Tier = { source, ...this.targetsOf(res.value, type) };
      if (tier.targets.length > 0) return this.materialize(capability, tier, queries, dnsFailures);
      for (const r of tier.rejected)
        dnsFailures.push({
          instance: r.target,
          endpoint: null,
          stage: 'dns',
          reason: r.reason,
          message: r.reason,
        });
    }
    const reason = answered ? 'no_dns_record' : 'dns_unavailable';
    return {
      view: {
        capability,
        source: 'none',
        available: false,
        reason,
        queries,
        candidates: [],
        failed: dnsFailures,
      },
      candidates: [],
    };
  }

  private ask(name: string, type: DnsQueryType): Promise<Result<DnsResponse>> {
    const key = `${name.toLowerCase()}|${type}`;
    let pending = this.asked.get(key);
    if (pending === undefined) {
      const kept = this.deps.reuseAnswers ? this.deps.answers?.get(key) : undefined;
      if (kept !== undefined) {
        pending = Promise.resolve({ ok: true as const, value: kept });
        this.asked.set(key, pending);
        return pending;
      }
      this.tally.dns_queries++;
      pending = this.deps.dns.query(name, type).then((res) => {
        if (res.ok && res.value.viaTcp) this.tally.dns_tcp_fallbacks++;
        this.deps.answers?.put(key, res);
        return res;
      });
      this.asked.set(key, pending);
    }
    return pending;
  }

  private targetsOf(res: DnsResponse, type: DnsQueryType): DnsTargets {
    const known = this.deps.targetsByAnswer?.get(res);
    if (known !== undefined) return known;
    const zone = this.deps.zone;
    const read =
      type === 'SVCB'
        ? svcbTargets(res.answers, res.additionals, zone)
        : { targets: srvTargets(res.answers, res.additionals, zone), rejected: [] };
    this.deps.targetsByAnswer?.set(res, read);
    return read;
  }

  private async address(t: DnsTarget): Promise<string | null> {
    if (t.address !== null) return t.address;
    const res = await this.ask(t.target, 'A');
    return res.ok ? firstAddress(res.value.answers) : null;
  }

  private async materialize(
    capability: string,
    tier: Tier,
    queries: string[],
    failed: FailedCandidate[],
  ): Promise<ResolvedCapability> {
    for (const r of tier.rejected)
      failed.push({ instance: r.target, endpoint: null, stage: 'dns', reason: r.reason, message: r.reason });
    const { checked, unchecked } = await this.checkEnough(capability, tier);
    const healthy: Candidate[] = [];
    const unverified: Candidate[] = [];
    let cardsOk = 0;
    for (const c of checked) {
      if (c.kind === 'failed') failed.push(c.failure);
      else if (c.kind === 'skipped') continue;
      else {
        cardsOk++;
        (c.candidate.health === 'healthy' ? healthy : unverified).push(c.candidate);
      }
    }
    // Unverified candidates are used only when no healthy one is left (seed 2.5).
    const candidates = healthy.length > 0 ? healthy : unverified;
    const matched = checked.some((c) => c.kind !== 'skipped');
    const reason =
      healthy.length > 0
        ? null
        : unverified.length > 0
          ? 'unverified_only'
          : cardsOk > 0
            ? 'all_unhealthy'
            : matched
              ? 'all_cards_unreachable'
              : 'no_dns_record';
    const view: CapabilityResolution = {
      capability,
      source: matched ? tier.source : 'none',
      available: candidates.length > 0,
      reason,
      queries,
      candidates: candidates.map(({ baseUrl: _b, card: _c, ...v }) => v),
      failed,
      ...(unchecked > 0 ? { unchecked } : {}),
    };
    return { view, candidates };
  }

  /**
   * Checks every target, or with `healthyEnough`, the first ones in selection order (priority, then
   * weighted random): one round of `healthyEnough` targets, and only if too few of them are healthy,
   * one more round with all the rest, so a dead replica costs one round trip, not one per replica.
   */
  private async checkEnough(
    capability: string,
    tier: Tier,
  ): Promise<{ checked: Checked[]; unchecked: number }> {
    const enough = this.deps.healthyEnough ?? Number.POSITIVE_INFINITY;
    const check = (t: DnsTarget) => this.check(capability, tier.source, t);
    if (tier.targets.length <= enough)
      return { checked: await Promise.all(tier.targets.map(check)), unchecked: 0 };
    const ordered = orderCandidates(tier.targets, this.deps.random);
    const checked = await Promise.all(ordered.slice(0, enough).map(check));
    const healthy = checked.filter((c) => c.kind === 'ok' && c.candidate.health === 'healthy').length;
    if (healthy >= enough) return { checked, unchecked: ordered.length - enough };
    checked.push(...(await Promise.all(ordered.slice(enough).map(check))));
    return { checked, unchecked: 0 };
  }

  private async check(capability: string, source: Tier['source'], t: DnsTarget): Promise<Checked> {
    const address = await this.address(t);
    if (address === null)
      return {
        kind: 'failed',
        failure: failedFrom(t, 'address', 'no_address', `no A record for ${t.target}`),
      };
    const url = cardUrlFor(t, address);
    if (url === null) {
      const message = `card URL ${t.cardUrl} is not on the instance ${hostPort(address, t.port)}`;
      return {
        kind: 'failed',
        failure: failedFrom({ ...t, address }, 'card', 'card_url_outside_instance', message),
      };
    }
    const endpoint = hostPort(address, t.port);
    const fetched = await this.deps.cards.get(endpoint, url, t.cardSha256, this.tally);
    if (!fetched.ok) {
      const reason = String(fetched.error.data?.reason ?? fetched.error.code);
      return {
        kind: 'failed',
        failure: failedFrom({ ...t, address }, 'card', reason, fetched.error.message),
      };
    }
    const ext = extensionOf(fetched.value.card);
    // Anyone's A2A agent has no Reach extension: the registry mapped its skills and DNS names it under
    // this capability, so DNS is the statement (the generic SRV lists everyone and cannot say it).
    const ids = ext?.capability_ids ?? (source === 'generic_srv_filtered' ? [] : [capability]);
    if (!ids.includes(capability)) {
      // The generic SRV lists every agent; the card filter is how it narrows to this capability.
      if (source === 'generic_srv_filtered') return { kind: 'skipped' };
      const message = `card of ${t.instance} does not list ${capability}`;
      return {
        kind: 'failed',
        failure: failedFrom({ ...t, address }, 'card', 'card_lacks_capability', message),
      };
    }
    if (!hasUsableSkill(fetched.value.card, ext !== null)) {
      // Nothing on the card says what the agent does: not a candidate, and nothing for the catalog.
      const message = `card of ${t.instance} has no skill${ext !== null ? ' with a capability id' : ''}; ignored`;
      const failure = failedFrom({ ...t, address }, 'card', 'card_without_skills', message);
      this.deps.onIgnoredCard?.({ ...failure, capability, card_sha256: fetched.value.sha256 });
      return { kind: 'failed', failure };
    }
    const baseUrl = `http://${endpoint}`;
    // Only SDK agents serve /health; the registry probes anyone else's agent on its behalf.
    const health = ext ? await this.deps.health.health(baseUrl, this.tally) : 'unverified';
    if (health === 'unhealthy') {
      return {
        kind: 'failed',
        failure: failedFrom({ ...t, address }, 'health', 'unhealthy', `${baseUrl}/health is not ok`),
      };
    }
    return {
      kind: 'ok',
      candidate: {
        instance: t.instance,
        agent_name: fetched.value.card.name,
        endpoint,
        target: t.target,
        address,
        port: t.port,
        priority: t.priority,
        weight: t.weight,
        health,
        card_version: ext?.declaration_version ?? fetched.value.card.version,
        card_sha256: fetched.value.sha256,
        capability_ids: ids,
        idempotent: ext?.idempotent ?? false,
        baseUrl,
        card: fetched.value.card,
      },
    };
  }
}
