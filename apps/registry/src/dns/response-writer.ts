import type { DnsQuery } from './query-parser.js';
import { RRTYPE } from './rr.js';

/** The UDP payload size this server advertises and never exceeds (DNS flag day 2020). */
export const ADVERTISED_UDP_SIZE = 1232;
/** A DNS message over TCP carries at most this many octets (a 16-bit length prefix). */
export const MAX_TCP_MESSAGE = 65_535;

/** Who owns an outgoing RR: the question name itself, or relative labels above the zone apex. */
export type Owner = { kind: 'qname' } | { kind: 'relative'; wire: Buffer };

/** One record to write. */
export interface OutRr {
  owner: Owner;
  type: number;
  ttl: number;
  rdata: Buffer;
}

/** The sections of an answer, before size limits are applied. */
export interface Sections {
  rcode: number;
  authoritative: boolean;
  answer: readonly OutRr[];
  authority: readonly OutRr[];
  /** Whole RRsets, added in order while they fit; dropping them never sets TC (RFC 2181 section 9). */
  additional: readonly (readonly OutRr[])[];
}

const QR = 0x8000;
const AA = 0x0400;
const TC = 0x0200;
// Opcode, RD and CD are copied from the query.
const COPIED = 0x7800 | 0x0100 | 0x0010;
const OPT_RR_SIZE = 11;

/** The largest answer a client can take over UDP: its EDNS size within [512, 1232], or 512 without EDNS. */
export function udpLimit(query: DnsQuery): number {
  if (query.edns === undefined) return 512;
  return Math.min(ADVERTISED_UDP_SIZE, Math.max(512, query.edns.udpSize));
}

function ownerSize(owner: Owner): number {
  return owner.kind === 'qname' ? 2 : owner.wire.length + 2;
}

function rrSize(rr: OutRr): number {
  return ownerSize(rr.owner) + 10 + rr.rdata.length;
}

function writeRr(buf: Buffer, at: number, rr: OutRr, apexPointer: number): number {
  let offset = at;
  if (rr.owner.kind === 'qname') {
    offset = buf.writeUInt16BE(0xc00c, offset);
  } else {
    offset += rr.owner.wire.copy(buf, offset);
    offset = buf.writeUInt16BE(0xc000 | apexPointer, offset);
  }
  offset = buf.writeUInt16BE(rr.type, offset);
  offset = buf.writeUInt16BE(1, offset);
  offset = buf.writeUInt32BE(rr.ttl, offset);
  offset = buf.writeUInt16BE(rr.rdata.length, offset);
  return offset + rr.rdata.copy(buf, offset);
}

/**
 * Encodes a response to `query` within `limit` octets. Owner names are compressed against the
 * question (the apex is its suffix); RDATA names are never compressed (RFC 2782, RFC 9460).
 * `apexWireLength` is the zone apex's wire length with its root byte, or 0 outside the zone.
 */
export function writeResponse(
  query: DnsQuery,
  sections: Sections,
  limit: number,
  apexWireLength: number,
): Buffer {
  const questionEnd = 12 + query.qname.length + 4;
  const fixed = questionEnd + (query.edns === undefined ? 0 : OPT_RR_SIZE);
  let answer = sections.answer;
  let authority = sections.authority;
  let truncated = false;
  let size =
    fixed + answer.reduce((n, rr) => n + rrSize(rr), 0) + authority.reduce((n, rr) => n + rrSize(rr), 0);
  if (size > limit) {
    truncated = true;
    authority = [];
    const kept: OutRr[] = [];
    size = fixed;
    // Over UDP the client retries over TCP; over TCP it keeps whatever fits in one message.
    if (limit >= MAX_TCP_MESSAGE) {
      for (const rr of answer) {
        if (size + rrSize(rr) > limit) break;
        kept.push(rr);
        size += rrSize(rr);
      }
    }
    answer = kept;
  }
  const additional: OutRr[] = [];
  if (!truncated) {
    for (const set of sections.additional) {
      const setSize = set.reduce((n, rr) => n + rrSize(rr), 0);
      if (size + setSize > limit) break;
      additional.push(...set);
      size += setSize;
    }
  }
  const buf = Buffer.alloc(size);
  const flags =
    QR |
    (query.flags & COPIED) |
    (sections.authoritative ? AA : 0) |
    (truncated ? TC : 0) |
    (sections.rcode & 0xf);
  buf.writeUInt16BE(query.id, 0);
  buf.writeUInt16BE(flags, 2);
  buf.writeUInt16BE(1, 4);
  buf.writeUInt16BE(answer.length, 6);
  buf.writeUInt16BE(authority.length, 8);
  buf.writeUInt16BE(additional.length + (query.edns === undefined ? 0 : 1), 10);
  let at = 12 + query.qname.copy(buf, 12);
  at = buf.writeUInt16BE(query.qtype, at);
  at = buf.writeUInt16BE(query.qclass, at);
  const apexPointer = 12 + query.qname.length - apexWireLength;
  for (const rr of answer) at = writeRr(buf, at, rr, apexPointer);
  for (const rr of authority) at = writeRr(buf, at, rr, apexPointer);
  for (const rr of additional) at = writeRr(buf, at, rr, apexPointer);
  if (query.edns !== undefined) writeOpt(buf, at, sections.rcode, query.edns.dnssecOk);
  return buf;
}

function writeOpt(buf: Buffer, at: number, rcode: number, dnssecOk: boolean): void {
  buf[at] = 0;
  buf.writeUInt16BE(RRTYPE.OPT, at + 1);
  buf.writeUInt16BE(ADVERTISED_UDP_SIZE, at + 3);
  // Extended RCODE (upper 8 bits), version 0, DO copied (RFC 3225).
  buf.writeUInt32BE(((((rcode >> 4) & 0xff) << 24) | (dnssecOk ? 0x8000 : 0)) >>> 0, at + 5);
  buf.writeUInt16BE(0, at + 9);
}

/** A header-only response (FORMERR, NOTIMP) for a message that could not be read as a query. */
export function writeHeaderOnly(id: number, queryFlags: number, rcode: number): Buffer {
  const buf = Buffer.alloc(12);
  buf.writeUInt16BE(id, 0);
  buf.writeUInt16BE(QR | (queryFlags & COPIED) | (rcode & 0xf), 2);
  return buf;
}
