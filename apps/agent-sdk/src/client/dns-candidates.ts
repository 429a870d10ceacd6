import type { DnsClient, DnsRecord, DnsResponse } from '../dns/index.js';
import { AgentCard, CARD_PATH, cardExtension, sdkAgentTarget } from '../protocol/card.js';
import { capabilityQueryNames } from '../protocol/dns-names.js';
import { readSvcbAnswers } from '../svcb/index.js';
import { agentNameOfInstance, type ReachTarget } from './reach-target.js';

/** The DNS the client falls back to when the registry is unreachable: the stub client and the zone. */
export interface DnsFallback {
  client: DnsClient;
  zone: string;
}

interface Found {
  name: string;
  port: number;
  priority: number;
  weight: number;
  host: string | undefined;
}

/** SRV RDATA as dns-packet decodes it. */
interface SrvData {
  target: string;
  port: number;
  priority?: number;
  weight?: number;
}

const bare = (name: string) => name.replace(/\.$/, '').toLowerCase();

const TYPE_A = 1;
const TYPE_SRV = 33;
const TYPE_AAAA = 28;

function addressIn(answer: DnsResponse, name: string): string | undefined {
  for (const rr of [...answer.additionals, ...answer.answers]) {
    if (
      (rr.type === TYPE_A || rr.type === TYPE_AAAA) &&
      bare(rr.name) === name &&
      typeof rr.data === 'string'
    )
      return rr.data;
  }
  return undefined;
}

/** The answer to one question; a server that does not answer is no answer, never a throw. */
async function ask(
  dns: DnsFallback,
  name: string,
  type: 'SVCB' | 'SRV' | 'A',
): Promise<DnsResponse | undefined> {
  const res = await dns.client.query(name, type);
  return res.ok ? res.value : undefined;
}

async function svcbTargets(dns: DnsFallback, operation: string): Promise<Found[]> {
  const packet = await ask(dns, capabilityQueryNames(operation, dns.zone).svcb, 'SVCB');
  if (!packet) return [];
  const read = readSvcbAnswers(packet.answers);
  if (!read.ok) return [];
  return read.value
    .filter((answer) => answer.record.priority > 0 && answer.record.params.port !== undefined)
    .map(({ record }) => {
      const name = bare(record.target);
      return {
        name,
        port: record.params.port!,
        priority: record.priority,
        weight: 1,
        host: record.params.ipv4hint?.[0] ?? record.params.ipv6hint?.[0] ?? addressIn(packet, name),
      };
    });
}

async function srvTargets(dns: DnsFallback, owner: string): Promise<Found[]> {
  const packet = await ask(dns, owner, 'SRV');
  if (!packet) return [];
  return packet.answers
    .filter((rr): rr is DnsRecord & { data: SrvData } => rr.type === TYPE_SRV)
    .map((rr) => {
      const name = bare(rr.data.target);
      return {
        name,
        port: rr.data.port,
        priority: rr.data.priority ?? 0,
        weight: rr.data.weight ?? 0,
        host: addressIn(packet, name),
      };
    });
}

async function addressOf(dns: DnsFallback, name: string): Promise<string | undefined> {
  const packet = await ask(dns, name, 'A');
  return packet && addressIn(packet, name);
}

const CARD_TIMEOUT_MS = 1_000;
const CARD_MAX_BYTES = 64 * 1024;

/** The card an instance serves, or undefined (unreachable, too large, not a card) within 1 s. */
async function cardAt(host: string, port: number): Promise<AgentCard | undefined> {
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  try {
    const res = await fetch(`http://${authority}${CARD_PATH}`, {
      signal: AbortSignal.timeout(CARD_TIMEOUT_MS),
      redirect: 'error',
    });
    if (!res.ok || Number(res.headers.get('content-length') ?? 0) > CARD_MAX_BYTES) return undefined;
    const body = await res.text();
    if (Buffer.byteLength(body) > CARD_MAX_BYTES) return undefined;
    const parsed = AgentCard.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Every live instance (`_agent._tcp`) whose card lists `operation`: the last resort, one card each. */
async function genericTargets(dns: DnsFallback, operation: string): Promise<Found[]> {
  const all = await srvTargets(dns, capabilityQueryNames(operation, dns.zone).genericSrv);
  const kept = await Promise.all(
    all.map(async (f): Promise<Found | undefined> => {
      const host = f.host ?? (await addressOf(dns, f.name));
      if (!host) return undefined;
      const card = await cardAt(host, f.port);
      const ids = card ? (cardExtension(card)?.capability_ids ?? []) : [];
      return ids.includes(operation) ? { ...f, host } : undefined;
    }),
  );
  return kept.filter((f): f is Found => f !== undefined);
}

/** RFC 2782 order: lower priority first; within one priority, a weighted random draw. */
function srvOrder(found: Found[], random: () => number): Found[] {
  const keyed = found.map((f) => ({ f, key: random() ** (1 / Math.max(f.weight, 0.01)) }));
  keyed.sort((a, b) => a.f.priority - b.f.priority || b.key - a.key);
  return keyed.map((k) => k.f);
}

/**
 * Candidates for `operation` from DNS alone (ARCHITECTURE section 3): the DNS-AID SVCB
 * `_<op>._a2a._agents.<zone>` first, then the role SRV `_<op>._tcp.<zone>`, then the generic
 * `_agent._tcp.<zone>` filtered by each instance's card. Idempotency is unknown in DNS, so targets
 * say false.
 */
export async function resolveViaDns(
  dns: DnsFallback,
  operation: string,
  random: () => number = Math.random,
): Promise<ReachTarget[]> {
  let found = await svcbTargets(dns, operation).catch(() => [] as Found[]);
  if (found.length === 0)
    found = await srvTargets(dns, capabilityQueryNames(operation, dns.zone).roleSrv).catch(
      () => [] as Found[],
    );
  if (found.length === 0) found = await genericTargets(dns, operation).catch(() => [] as Found[]);
  const targets: ReachTarget[] = [];
  for (const f of srvOrder(found, random)) {
    const host = f.host ?? (await addressOf(dns, f.name));
    if (!host) continue;
    const instanceId = f.name.split('.')[0]!;
    targets.push({
      instance_id: instanceId,
      agent_name: agentNameOfInstance(instanceId),
      operation,
      endpoint: { host, port: f.port, scheme: 'http' },
      a2a: sdkAgentTarget({ host, port: f.port, scheme: 'http' }),
      idempotent: false,
      source: 'dns',
    });
  }
  return targets;
}
