import { type DnsQuery, RCODE } from './query-parser.js';
import type { OutRr, Sections } from './response-writer.js';
import { RRTYPE } from './rr.js';
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
  const soa = snapshot.soa.rrs[0]!;
  // Negative answers are cached for min(SOA TTL, SOA minimum) (RFC 2308 section 3); both are the zone TTL.
  const authority: OutRr = {
    owner: { kind: 'relative', wire: Buffer.alloc(0) },
    type: RRTYPE.SOA,
    ttl: snapshot.ttl,
    rdata: soa.rdata,
  };
  return { rcode, authoritative: true, answer: [], authority: [authority], additional: [] };
}

function glueFor(snapshot: ZoneSnapshot, answered: readonly RrSet[], node: ZoneNode): OutRr[][] {
  const names: string[] = [];
  for (const set of answered) {
    for (const rr of set.rrs) if (rr.glue !== undefined && !names.includes(rr.glue)) names.push(rr.glue);
  }
  const additional: OutRr[][] = [];
  for (const name of names) {
    const target = snapshot.nodes.get(name);
    if (target === undefined) continue;
    for (const type of [RRTYPE.A, RRTYPE.AAAA]) {
      const set = target.rrsets.get(type);
      if (set === undefined || (target === node && answered.includes(set))) continue;
      additional.push(
        set.rrs.map((rr) => ({
          owner: { kind: 'relative', wire: target.wire },
          type,
          ttl: set.ttl,
          rdata: rr.rdata,
        })),
      );
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
  const sets =
    query.qtype === RRTYPE.ANY
      ? [...node.rrsets.values()]
      : [node.rrsets.get(query.qtype)].filter((s) => s !== undefined);
  if (sets.length === 0) return negative(snapshot, RCODE.NOERROR);
  const answer: OutRr[] = [];
  for (const set of sets) {
    for (const rr of set.rrs)
      answer.push({ owner: { kind: 'qname' }, type: set.type, ttl: set.ttl, rdata: rr.rdata });
  }
  return {
    rcode: RCODE.NOERROR,
    authoritative: true,
    answer,
    authority: [],
    additional: glueFor(snapshot, sets, node),
  };
}
