import { DNS_AID_PROTOCOL } from './dns-names.js';

/** The most octets one TXT character-string holds. */
export const TXT_STRING_MAX = 255;
// Keeps each TXT RR well under the 65535-octet RDATA limit.
const RR_STRINGS_MAX = 200;

const INDEX_PREFIX = 'agents=';

/** One entry of a DNS-AID index: an agent (for us, a capability) and the protocol it speaks. */
export interface IndexEntry {
  name: string;
  protocol: string;
}

/**
 * The `_index._agents` TXT RRs for these capabilities, DNS-AID style: each character-string is a
 * complete `agents=<cap>:a2a,…` list of at most 255 octets (so a reader that takes one string still
 * gets whole entries), as many strings per RR as needed, a further RR past 200 strings.
 */
export function indexTxtStrings(
  capabilities: readonly string[],
  protocol: string = DNS_AID_PROTOCOL,
): string[][] {
  const strings: string[] = [];
  let current = '';
  for (const capability of capabilities) {
    const entry = `${capability}:${protocol}`;
    const next = current === '' ? `${INDEX_PREFIX}${entry}` : `${current},${entry}`;
    if (current !== '' && Buffer.byteLength(next) > TXT_STRING_MAX) {
      strings.push(current);
      current = `${INDEX_PREFIX}${entry}`;
    } else current = next;
  }
  strings.push(current === '' ? INDEX_PREFIX : current);
  const rrs: string[][] = [];
  for (let i = 0; i < strings.length; i += RR_STRINGS_MAX) rrs.push(strings.slice(i, i + RR_STRINGS_MAX));
  return rrs;
}

const ENTRY = /^([A-Za-z0-9_-]{1,63}):([A-Za-z0-9-]{1,63})$/;

/**
 * The entries of an `_index._agents` TXT answer: every `agents=` string of every RR (the responder's
 * packed strings and CoreDNS's one record per capability read alike), de-duplicated, in order.
 * Strings without the `agents=` prefix and malformed entries are skipped, as the reference reader does.
 */
export function parseIndexTxt(strings: readonly string[]): IndexEntry[] {
  const seen = new Set<string>();
  const out: IndexEntry[] = [];
  for (const raw of strings) {
    const text = raw.trim();
    if (!text.startsWith(INDEX_PREFIX)) continue;
    for (const piece of text.slice(INDEX_PREFIX.length).split(',')) {
      const m = ENTRY.exec(piece.trim());
      if (m === null) continue;
      const entry = { name: m[1]!, protocol: m[2]!.toLowerCase() };
      const key = `${entry.name}:${entry.protocol}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(entry);
    }
  }
  return out;
}

/** The capability ids an index answer lists for `protocol` (ours: `a2a`), sorted. */
export function indexedCapabilities(
  strings: readonly string[],
  protocol: string = DNS_AID_PROTOCOL,
): string[] {
  return parseIndexTxt(strings)
    .filter((e) => e.protocol === protocol)
    .map((e) => e.name)
    .sort();
}

const DESCRIPTION_PREFIX = 'description=';

/** Cuts `text` to at most `max` UTF-8 octets without splitting a character. */
function fitOctets(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch);
    if (used + n > max - 3) break;
    out += ch;
    used += n;
  }
  return `${out}…`;
}

/**
 * The strings of the TXT RR at `_<cap>._a2a._agents` (DNS-AID's capability fallback):
 * `capabilities=<cap>` and, when there is one, `description=…` cut to one 255-octet string.
 */
export function capabilityTxtStrings(capability: string, description?: string): string[] {
  const strings = [`capabilities=${capability}`];
  const text = description?.replace(/\s+/g, ' ').trim();
  if (text) strings.push(DESCRIPTION_PREFIX + fitOctets(text, TXT_STRING_MAX - DESCRIPTION_PREFIX.length));
  return strings;
}
