import {
  capabilityDescription,
  capabilityTxtStrings,
  DNS_AID_PROTOCOL,
  indexTxtStrings,
  publishedCapabilities,
} from '@agent-reach/sdk/protocol';
import type { InstanceRecord } from '../store/records.js';
import { skydnsPath } from './skydns-path.js';

/** A SkyDNS service message, as CoreDNS's etcd plugin decodes it (`msg.Service`). */
export interface SkydnsService {
  host?: string;
  port?: number;
  priority?: number;
  weight?: number;
  text?: string;
  ttl: number;
}

/** SRV priority and weight overrides; the leader republishes them from health and load. */
export interface SrvWeights {
  /** @default 10 */
  priority?: number;
  /** @default the declaration's priority (at least 1) */
  weight?: number;
  /** Per capability overrides of the two above. */
  byCapability?: Readonly<Record<string, { priority?: number; weight?: number }>>;
}

/** One key of the `/skydns/` projection and its JSON value. */
export interface SkydnsEntry {
  key: string;
  value: string;
}

/** The SRV priority used unless the leader publishes another. */
export const DEFAULT_SRV_PRIORITY = 10;
/** The SRV owner label that lists every live instance. */
export const GENERIC_SERVICE = 'agent';

// The zone's path is the same for every instance: computed once per zone name.
let lastZone: { zone: string; path: string } | undefined;
function zonePath(zone: string): string {
  if (lastZone?.zone !== zone) lastZone = { zone, path: skydnsPath(zone) };
  return lastZone.path;
}

const clampU16 = (value: number, min: number): number => Math.min(65_535, Math.max(min, Math.round(value)));

/** The SRV message of `capability` for one instance, with the leader's weight overrides if any. */
function srvValue(
  record: InstanceRecord,
  target: string,
  ttl: number,
  weights: SrvWeights,
  capability: string,
): string {
  const override = weights.byCapability?.[capability];
  const service: SkydnsService = {
    host: target,
    port: record.endpoint.port,
    priority: clampU16(override?.priority ?? weights.priority ?? DEFAULT_SRV_PRIORITY, 0),
    weight: clampU16(override?.weight ?? weights.weight ?? record.declaration.priority, 1),
    ttl,
  };
  return JSON.stringify(service);
}

/** SkyDNS TTLs are whole seconds, at least one. */
const ttlOf = (ttlSec: number): number => Math.max(1, Math.round(ttlSec));

/**
 * The SkyDNS messages of one instance: its address (A/AAAA), the generic `_agent._tcp` SRV, one role SRV
 * per published capability, per capability the DNS-AID TXTs at `_<cap>._a2a._agents` (`capabilities=`,
 * `description=`; they also make that name exist for every type, so CoreDNS answers NODATA there, never
 * an NXDOMAIN that a cache would hold against the SVCB), and one `agents=<cap>:a2a` TXT under
 * `_index._agents` (CoreDNS de-duplicates equal texts). Runs on every registration: no closures inside
 * (under tsx each named one costs a `__name` call).
 */
export function skydnsEntries(
  record: InstanceRecord,
  zone: string,
  ttlSec: number,
  weights: SrvWeights = {},
): SkydnsEntry[] {
  const ttl = ttlOf(ttlSec);
  // Keys are built from the zone's reversed path once (same result as skydnsPath on each full name).
  const base = zonePath(zone);
  const entries: SkydnsEntry[] = [
    {
      key: `${base}/${record.instance_id}`,
      value: shared(JSON.stringify({ host: record.endpoint.host, ttl } satisfies SkydnsService)),
    },
  ];
  // Computed once: the SRV and the index messages both go by the published capabilities.
  const capabilities = publishedCapabilities(record.declaration);
  pushSrvEntries(entries, record, zone, ttl, weights, capabilities);
  const instance = record.instance_id;
  for (const capability of capabilities) {
    const [capabilitiesText, descriptionText] = capabilityTxtStrings(
      capability,
      capabilityDescription(record.declaration, capability),
    );
    const dnsAid = `${base}/_agents/_${DNS_AID_PROTOCOL}/_${capability}`;
    entries.push({ key: `${dnsAid}/${instance}`, value: textValue(capabilitiesText!, ttl) });
    if (descriptionText !== undefined)
      entries.push({ key: `${dnsAid}/_description/${instance}`, value: textValue(descriptionText, ttl) });
    entries.push({
      key: `${base}/_agents/_index/_${capability}/${instance}`,
      value: textValue(indexTxtStrings([capability])[0]![0]!, ttl),
    });
  }
  return entries;
}

function textValue(text: string, ttl: number): string {
  return shared(JSON.stringify({ text, ttl } satisfies SkydnsService));
}

/** Distinct messages kept for sharing; past this the table starts over (it only saves copies). */
const MAX_SHARED_VALUES = 4096;
const sharedValues = new Map<string, string>();

/**
 * The one string kept for a message many instances publish alike (a capability's TXTs, a host's
 * address): the store then holds one copy, not one per instance (~250 bytes per instance).
 */
function shared(value: string): string {
  const kept = sharedValues.get(value);
  if (kept !== undefined) return kept;
  if (sharedValues.size >= MAX_SHARED_VALUES) sharedValues.clear();
  sharedValues.set(value, value);
  return value;
}

/**
 * The key CoreDNS's etcd plugin reads the zone's NS from (`ns.dns.<zone>`, an address message), so the
 * apex NS it serves names `ns.ns.dns.<zone>`, which exists (with its glue), and its SOA MNAME
 * `ns.dns.<zone>` resolves too. Not bound to any instance's lease: the name server outlives agents.
 */
export function nameServerEntry(zone: string, address: string, ttlSec: number): SkydnsEntry {
  return {
    key: `${zonePath(zone)}/dns/ns/ns`,
    value: JSON.stringify({ host: address, ttl: ttlOf(ttlSec) } satisfies SkydnsService),
  };
}

/**
 * The SRV messages of one instance (the generic `_agent._tcp` one, then one per published capability):
 * the only SkyDNS messages that carry a priority and a weight, so the only ones a weight change rewrites.
 */
export function srvEntries(
  record: InstanceRecord,
  zone: string,
  ttlSec: number,
  weights: SrvWeights = {},
): SkydnsEntry[] {
  const entries: SkydnsEntry[] = [];
  pushSrvEntries(entries, record, zone, ttlOf(ttlSec), weights, publishedCapabilities(record.declaration));
  return entries;
}

function pushSrvEntries(
  entries: SkydnsEntry[],
  record: InstanceRecord,
  zone: string,
  ttl: number,
  weights: SrvWeights,
  capabilities: readonly string[],
): void {
  const instance = record.instance_id;
  const target = `${instance}.${zone}`;
  const base = zonePath(zone);
  const generic = srvValue(record, target, ttl, weights, GENERIC_SERVICE);
  entries.push({ key: `${base}/_tcp/_${GENERIC_SERVICE}/${instance}`, value: generic });
  for (const capability of capabilities) {
    if (capability === GENERIC_SERVICE) continue;
    const value = srvValue(record, target, ttl, weights, capability);
    // Equal messages (no per-capability weight) are one string, kept once by the store.
    entries.push({
      key: `${base}/_tcp/_${capability}/${instance}`,
      value: value === generic ? generic : value,
    });
  }
}
