import { isIP } from 'node:net';
import type { ReachConfig } from '@agent-reach/config';
import { splitHostPort } from '@agent-reach/sdk/protocol';
import { nameServerEntry, type SkydnsEntry } from './skydns-entries.js';

const usable = (host: string) => isIP(host) !== 0 && host !== '0.0.0.0' && host !== '::';

/**
 * The SkyDNS NS message for the zone: the DNS server callers query (`dns.server`, CoreDNS in
 * production), else the responder's own concrete listen address; none when neither is an IP address
 * (CoreDNS takes only addresses in NS messages).
 */
export function nameServerSkydnsEntry(reach: ReachConfig, ttlSec: number): SkydnsEntry | undefined {
  for (const hostPort of [reach.dns.server, reach.dns.listen]) {
    const { host } = splitHostPort(hostPort);
    if (usable(host)) return nameServerEntry(reach.dns.zone, host, ttlSec);
  }
  return undefined;
}
