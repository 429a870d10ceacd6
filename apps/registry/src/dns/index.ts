/** The registry's DNS side: the live zone, the authoritative responder and the zone-file export. */
export { compileDnsOptions, type DnsOptions } from './dns-config.js';
export { instanceSvcParams } from './instance-entry.js';
export { handleMessage, type SnapshotProvider, type Transport } from './packet-handler.js';
export { createRegistryZone, startRegistryDns } from './registry-dns.js';
export {
  type DnsResponder,
  type DnsResponderOptions,
  startDnsResponder,
} from './responder.js';
export {
  type DnsResponderProcesses,
  type DnsResponderProcessesOptions,
  startDnsResponderProcesses,
} from './responder-processes.js';
export {
  type DnsResponderThread,
  type DnsResponderThreadOptions,
  startDnsResponderThread,
} from './responder-thread.js';
export { ADVERTISED_UDP_SIZE } from './response-writer.js';
export { RRTYPE } from './rr.js';
export { type InstanceWeights, Zone, type ZoneChange, type ZoneOptions, type ZoneSettings } from './zone.js';
export { ZoneFeed } from './zone-feed.js';
export { exportZoneFile } from './zone-file.js';
export { type PublishedInstance, ZoneReplica, type ZoneUpdate } from './zone-replica.js';
export { createZoneRoutes } from './zone-routes.js';
export type { RrSet, ZoneNode, ZoneSnapshot } from './zone-snapshot.js';
