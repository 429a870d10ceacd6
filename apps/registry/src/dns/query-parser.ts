import { RRTYPE } from './rr.js';

/** The EDNS(0) part of a query (RFC 6891). */
export interface Edns {
  udpSize: number;
  version: number;
  dnssecOk: boolean;
}

/**
 * A well-formed standard query. Its question name is read in place: octets 12 to `qnameEnd` of
 * `message` (labels in wire form, case as sent, then the root byte); a view of it cost every query an
 * object of ~80 bytes.
 */
export interface DnsQuery {
  kind: 'query';
  id: number;
  /** The header's second 16-bit word as sent (opcode, RD, CD ...). */
  flags: number;
  /** The message the query came in (answered within the task that received it, so never copied). */
  message: Buffer;
  /** Where the question name ends in `message` (it starts at QNAME_START). */
  qnameEnd: number;
  qtype: number;
  qclass: number;
  edns: Edns | undefined;
}

/** Where the question name starts in a message (after the 12-octet header). */
export const QNAME_START = 12;

/** What a message turned out to be: a query to answer, an error to report, or nothing to answer. */
export type ParsedMessage =
  | DnsQuery
  | { kind: 'error'; rcode: number; id: number; flags: number; question?: Buffer; edns?: Edns }
  | { kind: 'drop' };

/** Response codes used by the responder. */
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

const HEADER = QNAME_START;
const MAX_NAME = 255;

class Malformed extends Error {}

/**
 * The big-endian 16-bit word at `at`, read straight from the octets: every call below is inside a
 * bound checked before it, and Buffer's own reader (an argument check, then the same read) did not
 * inline here (~3 % of the packet handler's time).
 */
const u16 = (msg: Buffer, at: number): number => (msg[at]! << 8) | msg[at + 1]!;

/** Checks the uncompressed name at `offset` and returns the offset after it (no view per label: this runs per packet). */
function readQuestionName(msg: Buffer, offset: number): number {
  let at = offset;
  for (;;) {
    if (at >= msg.length) throw new Malformed('name runs past the message');
    const len = msg[at]!;
    // A question has nothing before it to point at, and extended label types are obsolete.
    if (len > 63) throw new Malformed('compressed or extended label in the question');
    if (at + 1 + len > msg.length) throw new Malformed('label runs past the message');
    if (at + 1 + len - offset > MAX_NAME) throw new Malformed('name longer than 255 octets');
    if (len === 0) return at + 1;
    at += 1 + len;
  }
}

/** Skips a possibly compressed name in the additional section and returns the offset after it; pointers may only point backwards. */
function skipName(msg: Buffer, offset: number): number {
  let at = offset;
  let length = 0;
  for (let hops = 0; hops < 128; ) {
    if (at >= msg.length) throw new Malformed('name runs past the message');
    const len = msg[at]!;
    if (len === 0) return at + 1;
    if ((len & 0xc0) === 0xc0) {
      if (at + 1 >= msg.length) throw new Malformed('pointer runs past the message');
      const target = ((len & 0x3f) << 8) | msg[at + 1]!;
      if (target >= at) throw new Malformed('forward compression pointer');
      checkPointerChain(msg, target, length, hops + 1);
      return at + 2;
    }
    if (len > 63) throw new Malformed('extended label type');
    length += len + 1;
    if (length > MAX_NAME || at + 1 + len > msg.length) throw new Malformed('bad name');
    at += 1 + len;
    hops += 1;
  }
  throw new Malformed('name has too many labels');
}

/** Follows a pointer chain to its end, bounding its length and hops. */
function checkPointerChain(msg: Buffer, start: number, lengthSoFar: number, hops: number): void {
  let at = start;
  let length = lengthSoFar;
  let limit = at;
  for (let n = hops; n < 256; n++) {
    const len = msg[at]!;
    if (len === 0) return;
    if ((len & 0xc0) === 0xc0) {
      if (at + 1 >= msg.length) throw new Malformed('pointer runs past the message');
      const target = ((len & 0x3f) << 8) | msg[at + 1]!;
      if (target >= limit) throw new Malformed('compression loop');
      at = target;
      limit = target;
      continue;
    }
    if (len > 63) throw new Malformed('extended label type');
    length += len + 1;
    if (length > MAX_NAME || at + 1 + len >= msg.length) throw new Malformed('bad name');
    at += 1 + len;
  }
  throw new Malformed('compression chain too long');
}

/** The OPT RR's data at `at`; `ttlHigh` and `ttlLow` are the halves of its TTL field (extended RCODE and version; DO and Z). */
function readOpt(
  msg: Buffer,
  at: number,
  rdlength: number,
  ttlHigh: number,
  ttlLow: number,
  udpSize: number,
): Edns {
  const end = at + rdlength;
  let cursor = at;
  while (cursor < end) {
    if (cursor + 4 > end) throw new Malformed('truncated EDNS option');
    const optLen = u16(msg, cursor + 2);
    cursor += 4 + optLen;
    if (cursor > end) throw new Malformed('EDNS option runs past its RR');
  }
  return { udpSize, version: ttlHigh & 0xff, dnssecOk: (ttlLow & 0x8000) !== 0 };
}

/** Reads the question's end, type and class and the EDNS part into `query`, after checking every additional RR. */
function readBody(msg: Buffer, query: DnsQuery): void {
  const qnameEnd = readQuestionName(msg, HEADER);
  if (qnameEnd + 4 > msg.length) throw new Malformed('question runs past the message');
  let at = qnameEnd + 4;
  let edns: Edns | undefined;
  const arcount = u16(msg, 10);
  for (let i = 0; i < arcount; i++) {
    const owner = at;
    at = skipName(msg, at);
    if (at + 10 > msg.length) throw new Malformed('RR header runs past the message');
    const type = u16(msg, at);
    const rdlength = u16(msg, at + 8);
    if (at + 10 + rdlength > msg.length) throw new Malformed('RDATA runs past the message');
    if (type === RRTYPE.OPT) {
      if (edns !== undefined) throw new Malformed('more than one OPT RR');
      if (at !== owner + 1) throw new Malformed('OPT owner is not the root');
      edns = readOpt(msg, at + 10, rdlength, u16(msg, at + 4), u16(msg, at + 6), u16(msg, at + 2));
    }
    at += 10 + rdlength;
  }
  if (at !== msg.length) throw new Malformed('trailing bytes after the last RR');
  query.qnameEnd = qnameEnd;
  query.qtype = u16(msg, qnameEnd);
  query.qclass = u16(msg, qnameEnd + 2);
  query.edns = edns;
}

/** Parses a message from the wire; never throws, whatever the bytes. */
export function parseQuery(msg: Buffer): ParsedMessage {
  if (msg.length < HEADER) return { kind: 'drop' };
  const id = u16(msg, 0);
  const flags = u16(msg, 2);
  // Never answer a response: two servers could echo each other forever.
  if ((flags & 0x8000) !== 0) return { kind: 'drop' };
  const opcode = (flags >> 11) & 0xf;
  if (opcode !== 0) return { kind: 'error', rcode: RCODE.NOTIMP, id, flags };
  // QDCOUNT 1, ANCOUNT and NSCOUNT 0.
  if (u16(msg, 4) !== 1 || u16(msg, 6) !== 0 || u16(msg, 8) !== 0)
    return { kind: 'error', rcode: RCODE.FORMERR, id, flags };
  // Every field set here, in one order, so all queries share one shape.
  const query: DnsQuery = {
    kind: 'query',
    id,
    flags,
    message: msg,
    qnameEnd: HEADER,
    qtype: 0,
    qclass: 0,
    edns: undefined,
  };
  try {
    readBody(msg, query);
    return query;
  } catch (cause) {
    if (cause instanceof Malformed || cause instanceof RangeError) {
      return { kind: 'error', rcode: RCODE.FORMERR, id, flags };
    }
    throw cause;
  }
}
