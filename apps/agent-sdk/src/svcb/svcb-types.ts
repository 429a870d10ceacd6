import { ReachError } from '../protocol/errors.js';

/** A SvcParamKey in presentation form: a registered name or the generic `keyNNNNN`. */
export type SvcParamKeyName =
  | 'mandatory'
  | 'alpn'
  | 'no-default-alpn'
  | 'port'
  | 'ipv4hint'
  | 'ech'
  | 'ipv6hint'
  | 'dohpath'
  | 'ohttp'
  | 'tls-supported-groups'
  | `key${number}`;

/**
 * The SvcParams of one SVCB/HTTPS record, typed per key (RFC 9460 section 7, RFC 9461, RFC 9540,
 * draft-ietf-tls-key-share-prediction). An absent field means the key is absent.
 */
export interface SvcParams {
  /** key 0: keys a client must understand, by name (`alpn`, `key65400`, ...). */
  mandatory?: SvcParamKeyName[];
  /** key 1: ALPN ids; each character is one octet (U+0000-U+00FF), so any id round-trips. */
  alpn?: string[];
  /** key 2: present when true; needs `alpn`. */
  noDefaultAlpn?: boolean;
  /** key 3: port number 0-65535. */
  port?: number;
  /** key 4: IPv4 addresses in dotted-quad form. */
  ipv4hint?: string[];
  /** key 5: the ECHConfigList bytes (base64 in presentation form). */
  ech?: Uint8Array;
  /** key 6: IPv6 addresses (any RFC 4291 text on input, RFC 5952 form on output). */
  ipv6hint?: string[];
  /** key 7: the DoH URI template (UTF-8). */
  dohpath?: string;
  /** key 8: present when true. */
  ohttp?: boolean;
  /** key 9: TLS NamedGroup code points, most preferred first, no duplicates. */
  tlsSupportedGroups?: number[];
  /** Every other key (10-65534) by number, as its raw wire value (`keyNNNNN=...`). */
  keys?: Record<number, Uint8Array>;
}

/** One SVCB/HTTPS RDATA: priority 0 is AliasMode, any other value ServiceMode. */
export interface SvcbRecord {
  /** SvcPriority, 0-65535. */
  priority: number;
  /** TargetName as an absolute presentation-form name: `foo.example.com.` or `.`. */
  target: string;
  params: SvcParams;
}

/** The two SVCB-compatible RR types of RFC 9460 (codes 64 and 65). */
export type SvcbRrType = 'SVCB' | 'HTTPS';

/** The ReachError every SVCB codec failure carries (code `INVALID_SVCB`). */
export function invalidSvcb(message: string, data?: Record<string, unknown>): ReachError {
  return new ReachError('INVALID_SVCB', message, data === undefined ? {} : { data });
}
