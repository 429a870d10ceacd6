import { type DnsQuery, QNAME_START } from './query-parser.js';
import { RRTYPE } from './rr.js';
import { type WireRrSet, writeU16, writeU32 } from './rrset-wire.js';

/** The UDP payload size this server advertises and never exceeds (DNS flag day 2020). */
export const ADVERTISED_UDP_SIZE = 1232;
/** A DNS message over TCP carries at most this many octets (a 16-bit length prefix). */
export const MAX_TCP_MESSAGE = 65_535;

/** The sections of an answer, as pre-encoded RRsets, before size limits are applied. */
export interface Sections {
  rcode: number;
  authoritative: boolean;
  answer: readonly WireRrSet[];
  authority: readonly WireRrSet[];
  /** Whole RRsets, added in order while they fit; dropping them never sets TC (RFC 2181 section 9). */
  additional: readonly WireRrSet[];
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

function sizeOf(sets: readonly WireRrSet[]): number {
  let size = 0;
  for (let i = 0; i < sets.length; i++) size += sets[i]!.size;
  return size;
}

/** Keeps the leading RRs of `sets` that fit in `room` octets (TCP answers past 64 KiB). */
function trim(sets: readonly WireRrSet[], room: number): WireRrSet[] {
  const kept: WireRrSet[] = [];
  let left = room;
  for (const set of sets) {
    if (set.size <= left) {
      kept.push(set);
      left -= set.size;
      continue;
    }
    const fits = set.rrEnds.filter((end) => end <= left);
    if (fits.length > 0) {
      const end = fits[fits.length - 1]!;
      kept.push({
        bytes: set.bytes.subarray(0, end),
        size: end,
        count: fits.length,
        rrEnds: fits,
        patches: set.patches.filter((p) => p < end),
      });
    }
    break;
  }
  return kept;
}

function copySets(buf: Buffer, at: number, sets: readonly WireRrSet[], pointer: number): number {
  let offset = at;
  for (let i = 0; i < sets.length; i++) {
    const { bytes, patches } = sets[i]!;
    buf.set(bytes, offset);
    for (let p = 0; p < patches.length; p++) {
      buf[offset + patches[p]!] = pointer >> 8;
      buf[offset + patches[p]! + 1] = pointer & 0xff;
    }
    offset += bytes.length;
  }
  return offset;
}

function countOf(sets: readonly WireRrSet[]): number {
  let count = 0;
  for (let i = 0; i < sets.length; i++) count += sets[i]!.count;
  return count;
}

/**
 * Encodes a response to `query` within `limit` octets: the question copied as asked, then the
 * pre-encoded RRsets with their apex pointers filled in (the apex is a suffix of the question).
 * `apexWireLength` is the zone apex's wire length with its root byte, or 0 outside the zone.
 */
export function writeResponse(
  query: DnsQuery,
  sections: Sections,
  limit: number,
  apexWireLength: number,
): Buffer {
  const questionEnd = query.qnameEnd + 4;
  const fixed = questionEnd + (query.edns === undefined ? 0 : OPT_RR_SIZE);
  let answer = sections.answer;
  let authority = sections.authority;
  let truncated = false;
  let size = fixed + sizeOf(answer) + sizeOf(authority);
  if (size > limit) {
    truncated = true;
    authority = [];
    // Over UDP the client retries over TCP; over TCP it keeps whatever fits in one message.
    answer = limit >= MAX_TCP_MESSAGE ? trim(answer, limit - fixed) : [];
    size = fixed + sizeOf(answer);
  }
  // The leading additional sets that fit (most answers have none).
  let additional: readonly WireRrSet[] = sections.additional;
  if (truncated) additional = [];
  else if (additional.length > 0) {
    let kept = 0;
    for (; kept < additional.length && size + additional[kept]!.size <= limit; kept++)
      size += additional[kept]!.size;
    if (kept < additional.length) additional = additional.slice(0, kept);
  }
  // Every octet is written below.
  const buf = Buffer.allocUnsafe(size);
  const flags =
    QR |
    (query.flags & COPIED) |
    (sections.authoritative ? AA : 0) |
    (truncated ? TC : 0) |
    (sections.rcode & 0xf);
  writeU16(buf, query.id, 0);
  writeU16(buf, flags, 2);
  writeU16(buf, 1, 4);
  writeU16(buf, countOf(answer), 6);
  writeU16(buf, countOf(authority), 8);
  writeU16(buf, countOf(additional) + (query.edns === undefined ? 0 : 1), 10);
  // The question as asked, octet by octet: Buffer#copy with a source range makes a view to copy from.
  const { message } = query;
  let at = QNAME_START;
  for (; at < questionEnd; at++) buf[at] = message[at]!;
  const pointer = 0xc000 | (query.qnameEnd - apexWireLength);
  at = copySets(buf, at, answer, pointer);
  at = copySets(buf, at, authority, pointer);
  at = copySets(buf, at, additional, pointer);
  if (query.edns !== undefined) writeOpt(buf, at, sections.rcode, query.edns.dnssecOk);
  return buf;
}

function writeOpt(buf: Buffer, at: number, rcode: number, dnssecOk: boolean): void {
  buf[at] = 0;
  writeU16(buf, RRTYPE.OPT, at + 1);
  writeU16(buf, ADVERTISED_UDP_SIZE, at + 3);
  // Extended RCODE (upper 8 bits), version 0, DO copied (RFC 3225).
  writeU32(buf, (((rcode >> 4) & 0xff) << 24) | (dnssecOk ? 0x8000 : 0), at + 5);
  writeU16(buf, 0, at + 9);
}

/** A header-only response (FORMERR, NOTIMP) for a message that could not be read as a query. */
export function writeHeaderOnly(id: number, queryFlags: number, rcode: number): Buffer {
  const buf = Buffer.alloc(12);
  buf.writeUInt16BE(id, 0);
  buf.writeUInt16BE(QR | (queryFlags & COPIED) | (rcode & 0xf), 2);
  return buf;
}
