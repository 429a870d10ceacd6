import type { DnsClient, DnsRecord, DnsResponse } from '../dns/index.js';
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

async function srvTargets(dns: DnsFallback, operation: string): Promise<Found[]> {
  const packet = await ask(dns, capabilityQueryNames(operation, dns.zone).roleSrv, 'SRV');
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

/** RFC 2782 order: lower priority first; within one priority, a weighted random draw. */
function srvOrder(found: Found[], random: () => number): Found[] {
  const keyed = found.map((f) => ({ f, key: random() ** (1 / Math.max(f.weight, 0.01)) }));
  keyed.sort((a, b) => a.f.priority - b.f.priority || b.key - a.key);
  return keyed.map((k) => k.f);
}

/**
 * Candidates for `operation` from DNS alone (ARCHITECTURE section 3): the DNS-AID SVCB
 * `_<op>._a2a._agents.<zone>` first, then the role SRV `_<op>._tcp.<zone>`. Idempotency is unknown in
 * DNS, so targets say false.
 */
export async function resolveViaDns(
  dns: DnsFallback,
  operation: string,
  random: () => number = Math.random,
): Promise<ReachTarget[]> {
  let found = await svcbTargets(dns, operation).catch(() => [] as Found[]);
  if (found.length === 0) found = await srvTargets(dns, operation).catch(() => [] as Found[]);
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
      idempotent: false,
      source: 'dns',
    });
  }
  return targets;
}
