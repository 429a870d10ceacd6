import { invalidSvcb, type SvcParamKeyName } from './svcb-types.js';

/** The registered SvcParamKeys this codec types, by presentation name (IANA "SvcParamKeys" registry). */
export const SVC_PARAM_KEYS = {
  mandatory: 0,
  alpn: 1,
  'no-default-alpn': 2,
  port: 3,
  ipv4hint: 4,
  ech: 5,
  ipv6hint: 6,
  dohpath: 7,
  ohttp: 8,
  'tls-supported-groups': 9,
} as const;

/**
 * DNS-AID's SvcParamKeys (the BANDAID/DNS-AID draft, section "custom SVCB parameters"), numbered as its
 * reference implementation (dns-aid-core, `DNS_AID_KEY_MAP`) numbers them today: RFC 9460 private-use
 * numbers until IANA assigns real ones. The one table: a renumbering is a one-line change here.
 */
export const DNS_AID_KEYS = {
  /** The capability document URL: for us, the A2A agent card. */
  cap: 65400,
  /** base64url (no padding) SHA-256 of the exact bytes served at `cap`. */
  'cap-sha256': 65401,
  /** DNS-AID application protocols, `proto/major` comma-separated (`a2a/1`). */
  bap: 65402,
  /** URL of the agent's policy document. */
  policy: 65403,
  /** Multi-tenant scope token. */
  realm: 65404,
  /** Signature over the record (JWS). */
  sig: 65405,
} as const;

/** Key 65535 is reserved as "Invalid key" (RFC 9460 section 14.3.2). */
export const INVALID_SVC_PARAM_KEY = 65535;

/** The first private-use SvcParamKey (65280-65534). */
export const PRIVATE_USE_KEY_MIN = 65280;

const NAMES: readonly SvcParamKeyName[] = Object.keys(SVC_PARAM_KEYS) as SvcParamKeyName[];

/** True for the keys that have a typed field in `SvcParams` (0-9). */
export function isTypedKey(key: number): boolean {
  return Number.isInteger(key) && key >= 0 && key < NAMES.length;
}

/** The presentation name of a key: its registered name, else `keyNNNNN`. */
export function svcParamKeyName(key: number): SvcParamKeyName {
  return isTypedKey(key) ? NAMES[key]! : `key${key}`;
}

/** Checks that `key` is a usable key number (0-65534). */
export function checkKeyNumber(key: number): number {
  if (!Number.isInteger(key) || key < 0 || key > 65535) {
    throw invalidSvcb(`SvcParamKey ${key} is not an integer 0-65534`, { key });
  }
  if (key === INVALID_SVC_PARAM_KEY) throw invalidSvcb('SvcParamKey 65535 is reserved ("Invalid key")');
  return key;
}

const KEY_NNNNN = /^key(0|[1-9][0-9]{0,4})$/;

/**
 * The number of a presentation key: a registered name or `keyNNNNN` without leading zeros
 * (RFC 9460 section 2.1). Names are lower-case only.
 */
export function parseSvcParamKey(name: string): { key: number; generic: boolean } {
  const registered = (SVC_PARAM_KEYS as Record<string, number>)[name];
  if (registered !== undefined && Object.hasOwn(SVC_PARAM_KEYS, name))
    return { key: registered, generic: false };
  const m = KEY_NNNNN.exec(name);
  if (m === null) throw invalidSvcb(`unknown SvcParamKey "${name}"`, { key: name });
  return { key: checkKeyNumber(Number(m[1])), generic: true };
}
