import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ReachConfig } from '@agent-reach/config';
import { splitHostPort } from '@agent-reach/sdk/protocol';
import { nameServerEntry, type SkydnsEntry } from './skydns-entries.js';

/** Resolves a host name to one address, or undefined. */
export type AddressLookup = (host: string) => Promise<string | undefined>;

/** The operating system's resolver (a Kubernetes Service name resolves to its ClusterIP). */
export const systemLookup: AddressLookup = (host) =>
  lookup(host).then(
    (found) => found.address,
    () => undefined,
  );

const usable = (host: string | undefined): host is string =>
  host !== undefined && isIP(host) !== 0 && host !== '0.0.0.0' && host !== '::';

/**
 * The SkyDNS NS message for the zone: the address of the DNS server callers query (`dns.server`,
 * CoreDNS in production; a host name is resolved once), else the responder's own concrete listen
 * address; none when neither gives an address (CoreDNS takes only addresses in NS messages).
 */
export async function nameServerSkydnsEntry(
  reach: ReachConfig,
  ttlSec: number,
  resolve: AddressLookup = systemLookup,
): Promise<SkydnsEntry | undefined> {
  for (const hostPort of [reach.dns.server, reach.dns.listen]) {
    const { host } = splitHostPort(hostPort);
    const address = isIP(host) !== 0 ? host : await resolve(host);
    if (usable(address)) return nameServerEntry(reach.dns.zone, address, ttlSec);
  }
  return undefined;
}
