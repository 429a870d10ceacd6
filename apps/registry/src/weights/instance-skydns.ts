import type { RegistryConfig } from '../config.js';
import { type SkydnsEntry, skydnsEntries, srvEntries } from '../skydns/index.js';
import type { InstanceRecord } from '../store/records.js';
import type { RegistryStore } from '../store/store.js';
import { defaultWeightOf, type SrvWeight } from './weight-of.js';

/** Where an instance's SkyDNS messages go: the zone and their TTL (the heartbeat timeout). */
export interface SkydnsTarget {
  zone: string;
  ttlSec: number;
}

/**
 * The registry's SkyDNS target (its zone, and TTLs of the heartbeat timeout: a dead instance's records
 * age out with its lease), or undefined when it writes no SkyDNS projection: `dns.skydns_projection`,
 * whose `auto` writes it only to a store that another process (CoreDNS's etcd plugin) can read.
 */
export function skydnsTargetOf(
  config: Pick<RegistryConfig, 'zone' | 'heartbeatTimeoutMs'> & {
    reach: { dns: Pick<RegistryConfig['reach']['dns'], 'skydns_projection'> };
  },
  store: Pick<RegistryStore, 'externalReaders'>,
): SkydnsTarget | undefined {
  const mode = config.reach.dns.skydns_projection;
  if (mode === 'off' || (mode === 'auto' && !store.externalReaders)) return undefined;
  return { zone: config.zone, ttlSec: Math.ceil(config.heartbeatTimeoutMs / 1000) };
}

/**
 * An instance's SkyDNS messages carrying `weight` (@default the declaration's, until the leader publishes
 * one): every message (`'all'`, at registration) or only the SRV messages a weight change rewrites
 * (`'weighted'`, the leader's republication). The one place that pairs an instance with its weight in DNS.
 */
export function instanceSkydns(
  record: InstanceRecord,
  target: SkydnsTarget,
  scope: 'all' | 'weighted',
  weight: SrvWeight = defaultWeightOf(record),
): SkydnsEntry[] {
  const weights = { priority: weight.priority, weight: weight.weight };
  return scope === 'all'
    ? skydnsEntries(record, target.zone, target.ttlSec, weights)
    : srvEntries(record, target.zone, target.ttlSec, weights);
}
