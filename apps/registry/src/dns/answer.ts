import { type DnsQuery, QNAME_START, RCODE } from './query-parser.js';
import type { Sections } from './response-writer.js';
import { RRTYPE } from './rr.js';
import { MAX_SET_BYTES, type WireRrSet } from './rrset-wire.js';
import type { RrSet, ZoneNode, ZoneSnapshot } from './zone-snapshot.js';

const CLASS_IN = 1;
const CLASS_ANY = 255;

/** ASCII-only lower-casing (RFC 4343): other octets never match a zone label anyway. */
const lowerOctet = (c: number): number => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c);

/** The relative name is spelled here (lower-case, dots between labels) and read out as one string. */
const spelled = Buffer.alloc(255);

/**
 * The question's name relative to the apex, lower-case, with dots between labels; undefined outside
 * the zone, null for a label no zone name can have (zone labels are letters, digits, `-` and `_`).
 * Read in place from the name's wire bytes (`message` from `start` to `end`) with no string or view
 * per label: this runs for every query.
 */
function relativeName(
  snapshot: ZoneSnapshot,
  message: Buffer,
  start: number,
  end: number,
): string | null | undefined {
  // The apex's wire form ends the name (its root byte included); it must start at a label boundary.
  const apexAt = end - snapshot.apexWireLength;
  if (apexAt < start) return undefined;
  let at = start;
  while (at < apexAt) at += 1 + message[at]!;
  if (at !== apexAt) return undefined;
  const apex = snapshot.apexWire;
  for (let i = 0; i < apex.length; i++) if (lowerOctet(message[apexAt + i]!) !== apex[i]) return undefined;
  if (apexAt === start) return '';
  // Each length octet becomes a dot (the first one is left out).
  for (let i = start + 1; i < apexAt; ) {
    const labelEnd = i + message[i - 1]!;
    for (; i < labelEnd; i++) {
      let c = message[i]!;
      if (c >= 0x41 && c <= 0x5a)
        c |= 0x20; // A-Z
      else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f))
        return null; // not a-z 0-9 - _
      spelled[i - start - 1] = c;
    }
    spelled[i - start - 1] = 0x2e;
    i += 1;
  }
  return spelled.toString('latin1', 0, apexAt - start - 1);
}

/** The empty section every answer without records in it shares (sections are never written to). */
const NONE: readonly WireRrSet[] = [];

const refused: Sections = {
  rcode: RCODE.REFUSED,
  authoritative: false,
  answer: NONE,
  authority: NONE,
  additional: NONE,
};

function negative(snapshot: ZoneSnapshot, rcode: number): Sections {
  // Negative answers are cached for min(SOA TTL, SOA minimum) (RFC 2308 section 3); both are the zone TTL.
  const authority = snapshot.negativeAuthority;
  return { rcode, authoritative: true, answer: NONE, authority, additional: NONE };
}

// Glue depends only on the answered encoding, which a set keeps until it changes (and all of its glue
// with it). Kept only for sets of several records: one record's glue is a single lookup, cheaper than an entry.
const glueCache = new WeakMap<WireRrSet, readonly WireRrSet[]>();

function glueFor(
  snapshot: ZoneSnapshot,
  answered: readonly RrSet[],
  wires: readonly WireRrSet[],
  node: ZoneNode,
  limit: number,
): readonly WireRrSet[] {
  // An answer past the message limit is truncated, and a truncated answer carries no additional data.
  let size = 0;
  for (let i = 0; i < wires.length; i++) size += wires[i]!.size;
  if (size > limit) return NONE;
  // Only a set of several records is ever filed: one record's set is not looked up (most answers).
  const filed = wires.length === 1 && wires[0]!.count > 1 ? wires[0]! : undefined;
  const cached = filed === undefined ? undefined : glueCache.get(filed);
  if (cached !== undefined) return cached;
  const additional = computeGlue(snapshot, answered, node);
  if (filed !== undefined) glueCache.set(filed, additional);
  return additional;
}

const GLUE_TYPES = [RRTYPE.A, RRTYPE.AAAA];

function answers(sets: readonly RrSet[], type: number): boolean {
  for (let i = 0; i < sets.length; i++) if (sets[i]!.type === type) return true;
  return false;
}

function computeGlue(
  snapshot: ZoneSnapshot,
  answered: readonly RrSet[],
  node: ZoneNode,
): readonly WireRrSet[] {
  // Made at the first glue found: most answers have none (NONE).
  let additional: WireRrSet[] | undefined;
  // A set's glue names are distinct; only several sets (ANY) can name one twice.
  let seen: Set<string> | undefined;
  for (const set of answered) {
    const names = set.glueNames();
    if (names.length === 0) continue;
    for (const name of names) {
      if (answered.length > 1) {
        seen ??= new Set();
        if (seen.has(name)) continue;
        seen.add(name);
      }
      // An instance's own SVCB names the instance itself: the node in hand, not a second lookup.
      const target = name === node.name ? node : snapshot.nodes.get(name);
      if (target === undefined) continue;
      for (const type of GLUE_TYPES) {
        const glue = target.rrsets.get(type);
        if (glue === undefined) continue;
        additional ??= [];
        if (target !== node) additional.push(glue.ownedWire(target.wire));
        // The question's own name (an SVCB whose target is "."): its owner is a pointer to the question.
        else if (!answers(answered, type)) additional.push(glue.answerWire());
      }
    }
  }
  return additional ?? NONE;
}

/**
 * Answers a well-formed query from one zone snapshot: data, NODATA, NXDOMAIN or a refusal. Glue is
 * looked up only for an answer within `limit` octets (a larger one goes out truncated, without it).
 */
export function answerQuery(snapshot: ZoneSnapshot, query: DnsQuery, limit = MAX_SET_BYTES): Sections {
  if (query.qclass !== CLASS_IN && query.qclass !== CLASS_ANY) return refused;
  const relative = relativeName(snapshot, query.message, QNAME_START, query.qnameEnd);
  if (relative === undefined) return refused;
  // Names no zone name can match (null) never change, so their answers are kept under no name.
  const name = relative ?? undefined;
  switch (query.qtype) {
    case RRTYPE.OPT:
      return { ...refused, rcode: RCODE.FORMERR };
    case RRTYPE.AXFR:
    case RRTYPE.IXFR:
      // Zone transfers are not offered; GET /v1/zone exports the zone instead.
      return refused;
    case RRTYPE.MAILA:
    case RRTYPE.MAILB:
      return { ...refused, rcode: RCODE.NOTIMP };
  }
  const node = name === undefined ? undefined : snapshot.nodes.get(name);
  if (node === undefined) {
    const exists = name !== undefined && snapshot.emptyNonTerminals.has(name);
    return negative(snapshot, exists ? RCODE.NOERROR : RCODE.NXDOMAIN);
  }
  let sets: RrSet[];
  let answer: WireRrSet[];
  if (query.qtype === RRTYPE.ANY) {
    sets = [...node.rrsets.values()];
    if (sets.length === 0) return negative(snapshot, RCODE.NOERROR);
    answer = sets.map((set) => set.answerWire());
  } else {
    const set = node.rrsets.get(query.qtype);
    if (set === undefined) return negative(snapshot, RCODE.NOERROR);
    sets = [set];
    answer = [set.answerWire()];
  }
  return {
    rcode: RCODE.NOERROR,
    authoritative: true,
    answer,
    authority: [],
    additional: glueFor(snapshot, sets, answer, node, limit),
  };
}
