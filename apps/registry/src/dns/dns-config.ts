import { isIP } from 'node:net';
import type { ReachConfig } from '@agent-reach/config';
import { ReachError, splitHostPort } from '@agent-reach/sdk/protocol';
import type { ZoneOptions } from './zone.js';

/** The zone and responder settings the config file implies. */
export interface DnsOptions {
  zone: ZoneOptions;
  listen: { host: string; port: number };
}

/** Compiles `dns.*` and the heartbeat timeout into zone and responder options; throws INVALID_CONFIG. */
export function compileDnsOptions(reach: ReachConfig): DnsOptions {
  let listen: { host: string; port: number };
  try {
    listen = splitHostPort(reach.dns.listen);
  } catch (cause) {
    throw new ReachError('INVALID_CONFIG', `invalid config: dns.listen: ${(cause as Error).message}`, {
      data: { key: 'dns.listen' },
      cause,
    });
  }
  const concrete = isIP(listen.host) !== 0 && listen.host !== '0.0.0.0' && listen.host !== '::';
  return {
    // Records live no longer than a dead instance's lease can.
    zone: {
      zone: reach.dns.zone,
      ttlSeconds: Math.max(1, Math.ceil(reach.control_plane.heartbeat_timeout / 1000)),
      nameServerAddress: concrete ? listen.host : undefined,
    },
    listen,
  };
}
