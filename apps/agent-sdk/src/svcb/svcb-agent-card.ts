import { createHash } from 'node:crypto';
import type { ReachError, Result } from '../protocol/errors.js';
import { checkKeyNumber, DNS_AID_KEYS, isTypedKey } from './svcb-keys.js';
import { invalidSvcb, type SvcParams } from './svcb-types.js';
import { asResult } from './svcb-wire.js';

/** DNS-AID `cap`: the agent card URL (UTF-8). */
export const AGENT_CARD_URL_KEY = DNS_AID_KEYS.cap;
/** DNS-AID `cap-sha256`: the card's SHA-256 digest, base64url without padding. */
export const AGENT_CARD_SHA256_KEY = DNS_AID_KEYS['cap-sha256'];
/** DNS-AID `bap`: the application protocols the agent speaks (`a2a/1`). */
export const AGENT_BAP_KEY = DNS_AID_KEYS.bap;

/** Where an agent's card lives, how to check it and what it speaks, as carried in DNS-AID's SvcParamKeys. */
export interface AgentCardRef {
  url: string;
  sha256: string;
  /** DNS-AID `bap` entries, e.g. `['a2a/1']`. */
  bap?: string[];
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A lone surrogate: the one thing a JS string can hold that UTF-8 cannot. */
const LONE_SURROGATE = /\p{Cs}/u;

/** The UTF-8 octets of `text` as the value of generic key `key` (10-65534), checked. */
function textParamBytes(key: number, text: string): Uint8Array {
  checkKeyNumber(key);
  if (isTypedKey(key)) throw invalidSvcb(`key${key} has a typed SvcParams field; it takes no text`);
  if (LONE_SURROGATE.test(text)) throw invalidSvcb(`text for key${key} is not well-formed Unicode`);
  return Buffer.from(text, 'utf8');
}

/** Returns params with generic key `key` (10-65534) set to the UTF-8 octets of `text`. */
export function setTextParam(params: SvcParams, key: number, text: string): SvcParams {
  return { ...params, keys: { ...params.keys, [key]: textParamBytes(key, text) } };
}

/** The UTF-8 text of generic key `key`, or undefined when absent; invalid UTF-8 throws `INVALID_SVCB`. */
export function getTextParam(params: SvcParams, key: number): string | undefined {
  const bytes = params.keys?.[key];
  if (bytes === undefined) return undefined;
  try {
    return utf8Strict.decode(bytes);
  } catch {
    throw invalidSvcb(`key${key} is not valid UTF-8`);
  }
}

/** The SHA-256 of a card body as base64url without padding: the value of DNS-AID `cap-sha256`. */
export function agentCardDigest(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('base64url');
}

// `http(s)://<dotted quad>:<port>/<plain path>`, the form the registry builds for an IPv4 endpoint. Every
// string of this shape is an absolute http(s) URL to `new URL` (no leading zeros: "08" would not parse),
// so matching it is an exact, much cheaper check; any other string is still parsed.
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const PLAIN_IPV4_URL = new RegExp(
  `^https?://${OCTET}(?:\\.${OCTET}){3}(?::(0|[1-9][0-9]{0,4}))?(?:/[A-Za-z0-9._~/-]*)?$`,
);

function checkUrl(url: string): string {
  const plain = PLAIN_IPV4_URL.exec(url);
  if (plain !== null && (plain[1] === undefined || Number(plain[1]) <= 0xffff)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidSvcb(`agent card URL "${url}" is not an absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalidSvcb(`agent card URL "${url}" must be http or https`);
  }
  return url;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function checkSha256(digest: string): string {
  // 43 characters carry 258 bits for 256: a digest is canonical (survives a base64url round trip)
  // exactly when the last character's two spare low bits are zero.
  const ok =
    typeof digest === 'string' &&
    /^[A-Za-z0-9_-]{43}$/.test(digest) &&
    (BASE64URL.indexOf(digest[42]!) & 3) === 0;
  if (!ok) throw invalidSvcb(`"${digest}" is not a base64url SHA-256 digest (43 characters, no padding)`);
  return digest;
}

const BAP_ENTRY = /^[a-z0-9][a-z0-9-]{0,62}(?:\/[0-9]{1,3})?$/;

function checkBap(entries: readonly string[]): string[] {
  if (entries.length === 0 || !entries.every((e) => BAP_ENTRY.test(e)))
    throw invalidSvcb(`"${entries.join(',')}" is not a DNS-AID bap list (proto[/version],…)`);
  return [...entries];
}

/** Returns params carrying the card URL, digest and (optional) bap list; each is validated. */
export function withAgentCard(params: SvcParams, card: AgentCardRef): SvcParams {
  const keys = { ...params.keys };
  keys[AGENT_CARD_URL_KEY] = textParamBytes(AGENT_CARD_URL_KEY, checkUrl(card.url));
  keys[AGENT_CARD_SHA256_KEY] = textParamBytes(AGENT_CARD_SHA256_KEY, checkSha256(card.sha256));
  if (card.bap !== undefined)
    keys[AGENT_BAP_KEY] = textParamBytes(AGENT_BAP_KEY, checkBap(card.bap).join(','));
  // Not `{ ...params, keys }`: on node 20 that gives every result a hidden class of its own (about 1 µs,
  // and slow reads in paramsToWire). Listing keys first (the spread may overwrite it) and setting it
  // again gives the same own properties and values with one shared hidden class.
  const out = { keys, ...params };
  out.keys = keys;
  return out;
}

/** Reads and validates whichever of the card keys are present (absent ones stay undefined). */
export function readAgentCard(params: SvcParams): Result<Partial<AgentCardRef>, ReachError> {
  return asResult(() => {
    const url = getTextParam(params, AGENT_CARD_URL_KEY);
    const sha256 = getTextParam(params, AGENT_CARD_SHA256_KEY);
    const bap = getTextParam(params, AGENT_BAP_KEY);
    return {
      ...(url === undefined ? {} : { url: checkUrl(url) }),
      ...(sha256 === undefined ? {} : { sha256: checkSha256(sha256) }),
      ...(bap === undefined ? {} : { bap: checkBap(bap.split(',')) }),
    };
  });
}
