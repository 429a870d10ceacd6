import { type DnsQuery, RCODE } from './query-parser.js';
import type { Sections } from './response-writer.js';
import { RRTYPE } from './rr.js';
import { answerWire, glueNames, ownedWire, type WireRrSet } from './rrset-wire.js';
import type { RrSet, ZoneNode, ZoneSnapshot } from './zone-snapshot.js';

/** Where a question name falls relative to the zone. */
export type Location =
  | { kind: 'outside' }
  | { kind: 'node'; node: ZoneNode }
  | { kind: 'empty-non-terminal' }
  | { kind: 'nxdomain' };

const ZONE_LABEL = /^[a-z0-9_-]+$/;
const CLASS_IN = 1;
const CLASS_ANY = 255;

/** ASCII-only lower-casing (RFC 4343): other octets never match a zone label anyway. */
const lowerLabel = (label: Buffer): string => label.toString('latin1').toLowerCase();

/** Finds a question name in the zone, case-insensitively. */
export function locate(snapshot: ZoneSnapshot, labels: readonly Buffer[]): Location {
  const apex = snapshot.apexLabels;
  const relativeCount = labels.length - apex.length;
  if (relativeCount < 0) return { kind: 'outside' };
  for (let i = 0; i < apex.length; i++) {
    if (lowerLabel(labels[relativeCount + i]!) !== apex[i]) return { kind: 'outside' };
  }
  const relative: string[] = [];
  for (let i = 0; i < relativeCount; i++) {
    const label = lowerLabel(labels[i]!);
    if (!ZONE_LABEL.test(label)) return { kind: 'nxdomain' };
    relative.push(label);
  }
  const name = relative.join('.');
  const node = snapshot.nodes.get(name);
  if (node !== undefined) return { kind: 'node', node };
  if (snapshot.emptyNonTerminals.has(name)) return { kind: 'empty-non-terminal' };
  return { kind: 'nxdomain' };
}

const refused: Sections = {
  rcode: RCODE.REFUSED,
  authoritative: false,
  answer: [],
  authority: [],
  additional: [],
};

function negative(snapshot: ZoneSnapshot, rcode: number): Sections {
  // Negative answers are cached for min(SOA TTL, SOA minimum) (RFC 2308 section 3); both are the zone TTL.
  const authority = ownedWire(snapshot.nodes.get('')!, snapshot.soa);
  return { rcode, authoritative: true, answer: [], authority: [authority], additional: [] };
}

// Glue depends only on the answered RRset, which belongs to one immutable snapshot.
const glueCache = new WeakMap<RrSet, WireRrSet[]>();

function glueFor(snapshot: ZoneSnapshot, answered: readonly RrSet[], node: ZoneNode): WireRrSet[] {
  const single = answered.length === 1 ? answered[0]! : undefined;
  const cached = single === undefined ? undefined : glueCache.get(single);
  if (cached !== undefined) return cached;
  const additional = computeGlue(snapshot, answered, node);
  if (single !== undefined) glueCache.set(single, additional);
  return additional;
}

function computeGlue(snapshot: ZoneSnapshot, answered: readonly RrSet[], node: ZoneNode): WireRrSet[] {
  const additional: WireRrSet[] = [];
  const seen = new Set<string>();
  for (const set of answered) {
    for (const name of glueNames(set)) {
      if (seen.has(name)) continue;
      seen.add(name);
      const target = snapshot.nodes.get(name);
      if (target === undefined) continue;
      for (const type of [RRTYPE.A, RRTYPE.AAAA]) {
        const glue = target.rrsets.get(type);
        if (glue === undefined || (target === node && answered.includes(glue))) continue;
        additional.push(ownedWire(target, glue));
      }
    }
  }
  return additional;
}

/** Answers a well-formed query from one zone snapshot: data, NODATA, NXDOMAIN or a refusal. */
export function answerQuery(snapshot: ZoneSnapshot, query: DnsQuery): Sections {
  if (query.qclass !== CLASS_IN && query.qclass !== CLASS_ANY) return refused;
  const where = locate(snapshot, query.labels);
  if (where.kind === 'outside') return refused;
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
  if (where.kind === 'nxdomain') return negative(snapshot, RCODE.NXDOMAIN);
  if (where.kind === 'empty-non-terminal') return negative(snapshot, RCODE.NOERROR);
  const { node } = where;
  let sets: RrSet[];
  if (query.qtype === RRTYPE.ANY) {
    sets = [...node.rrsets.values()];
  } else {
    const set = node.rrsets.get(query.qtype);
    sets = set === undefined ? [] : [set];
  }
  if (sets.length === 0) return negative(snapshot, RCODE.NOERROR);
  return {
    rcode: RCODE.NOERROR,
    authoritative: true,
    answer: sets.map(answerWire),
    authority: [],
    additional: glueFor(snapshot, sets, node),
  };
}
