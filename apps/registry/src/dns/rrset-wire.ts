import { copyWireRdata, wirePointers, wireRdataLength, type ZoneRr } from './rr.js';

/**
 * An RRset encoded for the wire. An owner is either a pointer to the question name (0xC00C) or
 * relative labels plus a pointer to the apex, whose offset in the message depends on the
 * question's length and is written at `patches` per answer (as are the apex pointers of compressed
 * names inside RDATA). `bytes` holds the leading records up to
 * the largest message (64 KiB) — a set larger than that is never sent whole — and `size` is the
 * whole set's length, which decides truncation.
 */
export interface WireRrSet {
  readonly bytes: Buffer;
  /** Octets of the whole set encoded; equal to `bytes.length` unless the set passes 64 KiB. */
  readonly size: number;
  /** Records in `bytes`. */
  readonly count: number;
  /** Offset just past each RR in `bytes`, for trimming at RR boundaries. */
  readonly rrEnds: readonly number[];
  /** Offsets of the two-octet apex pointers to fill in (owners' and RDATA's). */
  readonly patches: readonly number[];
}

/**
 * Writes `value`'s two octets big-endian at `at` and returns the offset after them. Straight stores
 * into a buffer the caller sized: Buffer#writeUInt16BE checks its arguments on every call, and the
 * answer path makes a dozen such writes per reply.
 */
export function writeU16(buf: Buffer, value: number, at: number): number {
  buf[at] = value >>> 8;
  buf[at + 1] = value;
  return at + 2;
}

/** `writeU16` for a 32-bit value (a TTL, a serial). */
export function writeU32(buf: Buffer, value: number, at: number): number {
  buf[at] = value >>> 24;
  buf[at + 1] = value >>> 16;
  buf[at + 2] = value >>> 8;
  buf[at + 3] = value;
  return at + 4;
}

/** The most octets any set contributes to a message (a TCP message's limit). */
export const MAX_SET_BYTES = 65_535;

const CLASS_IN = 1;

/** Octets one record takes in a message: owner, type, class, TTL, RDLENGTH and RDATA (as sent: see `wireRdataLength`). */
export const wireRrSize = (owner: Buffer | null, rdataLength: number): number =>
  (owner === null ? 2 : owner.length + 2) + 10 + rdataLength;

/**
 * Encodes the leading records of `rrs` that fit in MAX_SET_BYTES; `size` is the whole set's
 * encoded length (the caller knows it without walking every record). With `into`, the octets are
 * written there when they fit (a set re-encoded after each change reuses its buffer).
 */
export function encodeRrs(
  type: number,
  ttl: number,
  rrs: Iterable<ZoneRr>,
  owner: Buffer | null,
  size: number,
  into?: Buffer,
): WireRrSet {
  const kept: ZoneRr[] = [];
  let length = 0;
  for (const rr of rrs) {
    const next = length + wireRrSize(owner, wireRdataLength(rr));
    if (next > MAX_SET_BYTES) break;
    kept.push(rr);
    length = next;
  }
  const bytes =
    into !== undefined && into.length >= length ? into.subarray(0, length) : Buffer.allocUnsafe(length);
  const rrEnds: number[] = [];
  const patches: number[] = [];
  let at = 0;
  for (const rr of kept) {
    if (owner === null) {
      at = writeU16(bytes, 0xc00c, at);
    } else {
      at += owner.copy(bytes, at);
      patches.push(at);
      at = writeU16(bytes, 0, at);
    }
    at = writeU16(bytes, type, at);
    at = writeU16(bytes, CLASS_IN, at);
    at = writeU32(bytes, ttl, at);
    at = writeU16(bytes, wireRdataLength(rr), at);
    const pointers = wirePointers(rr);
    if (pointers !== undefined) for (const pointer of pointers) patches.push(at + pointer);
    at += copyWireRdata(rr, bytes, at);
    rrEnds.push(at);
  }
  return { bytes, size, count: kept.length, rrEnds, patches };
}

/**
 * `encodeRrs` for a set of one record (an instance's own A or SVCB, made per answer, the SOA, NS):
 * the same octets with none of the arrays and iteration a set of many needs.
 */
export function encodeOneRr(type: number, ttl: number, rr: ZoneRr, owner: Buffer | null): WireRrSet {
  const rdataLength = wireRdataLength(rr);
  const size = wireRrSize(owner, rdataLength);
  const bytes = Buffer.allocUnsafe(size);
  const patches: number[] = [];
  let at: number;
  if (owner === null) {
    at = writeU16(bytes, 0xc00c, 0);
  } else {
    at = owner.copy(bytes, 0);
    patches.push(at);
    at = writeU16(bytes, 0, at);
  }
  at = writeU16(bytes, type, at);
  at = writeU16(bytes, CLASS_IN, at);
  at = writeU32(bytes, ttl, at);
  at = writeU16(bytes, rdataLength, at);
  const pointers = wirePointers(rr);
  if (pointers !== undefined) for (const pointer of pointers) patches.push(at + pointer);
  copyWireRdata(rr, bytes, at);
  return { bytes, size, count: 1, rrEnds: [size], patches };
}
