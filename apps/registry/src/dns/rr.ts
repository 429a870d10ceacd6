import { isIPv4 } from 'node:net';
import {
  decodeSvcbRdata,
  encodeSvcbRdata,
  formatSvcbPresentation,
  type SvcbRecord,
} from '@agent-reach/sdk/svcb';
import dnsPacket from 'dns-packet';
import { labelsToWire, nameToWire } from './names.js';

/** RR type codes this zone publishes or answers for. */
export const RRTYPE = {
  A: 1,
  NS: 2,
  SOA: 6,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  OPT: 41,
  SVCB: 64,
  HTTPS: 65,
  IXFR: 251,
  AXFR: 252,
  MAILB: 253,
  MAILA: 254,
  ANY: 255,
} as const;

/** Mnemonic of each type the zone holds, for zone files. */
export const RRTYPE_NAME: Readonly<Record<number, string>> = {
  1: 'A',
  2: 'NS',
  6: 'SOA',
  16: 'TXT',
  28: 'AAAA',
  33: 'SRV',
  64: 'SVCB',
  65: 'HTTPS',
};

/** One resource record's data: wire RDATA, its presentation text, and the in-zone name whose address is glue. */
export interface ZoneRr {
  readonly rdata: Buffer;
  readonly text: string;
  /** Relative name whose A/AAAA records belong in the additional section. */
  readonly glue?: string;
  /** The RDATA as a message carries it, when it holds names that compress (see CompressedRdata). */
  readonly compressed?: CompressedRdata;
}

/**
 * RDATA whose in-zone names end in a pointer to the apex (RFC 1035 section 4.1.4), as knot sends
 * them: `ns.<zone>.` takes 5 octets instead of 20. Only the RFC 1035 types whose names may be
 * compressed (NS, SOA) get one; SRV and SVCB targets are never compressed (RFC 2782, RFC 9460). The
 * pointers' two octets are left for the message to fill in, since the apex's offset depends on the
 * question's length.
 */
export interface CompressedRdata {
  readonly bytes: Buffer;
  /** Offsets in `bytes` of the two-octet apex pointers. */
  readonly pointers: readonly number[];
}

/** A name of `apex` (absolute, trailing dot) as its relative labels then an apex pointer; null outside it. */
function compressibleName(name: string, apex: string): Buffer | null {
  const bare = name.toLowerCase().replace(/\.$/, '');
  if (!bare.endsWith(`.${apex}`)) return null;
  const relative = labelsToWire(bare.slice(0, -apex.length - 1));
  const out = Buffer.alloc(relative.length + 2);
  relative.copy(out);
  return out;
}

/** `rdata` with its leading names (each `wireLength` octets uncompressed) compressed; undefined if one is outside `apex`. */
function compressLeadingNames(
  rdata: Buffer,
  names: readonly { name: string; wireLength: number }[],
  apex: string,
): CompressedRdata | undefined {
  const parts: Buffer[] = [];
  const pointers: number[] = [];
  let at = 0;
  let length = 0;
  for (const { name, wireLength } of names) {
    const compressed = compressibleName(name, apex);
    if (compressed === null) return undefined;
    parts.push(compressed);
    length += compressed.length;
    pointers.push(length - 2);
    at += wireLength;
  }
  parts.push(rdata.subarray(at));
  return { bytes: Buffer.concat(parts), pointers };
}

interface RdataCodec {
  encode(data: unknown): Buffer;
}

// dns-packet's own typings omit its per-type codecs; they prefix RDATA with RDLENGTH, which we drop.
const record = (dnsPacket as unknown as { record(type: string): RdataCodec }).record;
const rdataOf = (type: string, data: unknown): Buffer => record(type).encode(data).subarray(2);

/** Bytes of each slab that zone RDATA is cut from. */
const SLAB_BYTES = 16 * 1024;
let slab = Buffer.allocUnsafeSlow(0);
let slabUsed = 0;
/** The buffer the last `room()` call placed its octets in. */
let roomSlab = slab;

/**
 * Room for `length` octets of RDATA the zone keeps, in `roomSlab` at the returned offset: cut from
 * slabs that hold nothing else. A buffer of its own costs more than its octets, and a slice of Node's
 * shared pool keeps that pool's whole 8 KiB alive, most of it other code's garbage (1 KB per instance
 * at 10,000 instances). The records keep the slab and an offset, not a Buffer view each (~100 bytes
 * apiece, four per instance).
 */
function room(length: number): number {
  if (length > SLAB_BYTES / 8) {
    roomSlab = Buffer.allocUnsafeSlow(length);
    return 0;
  }
  if (slabUsed + length > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  roomSlab = slab;
  slabUsed += length;
  return slabUsed - length;
}

/**
 * A record whose RDATA lies on a slab (see `room`): the slab, the offset and the length, and a view
 * made only when asked for (`rdata`). The zone holds several per instance; what answers read goes
 * through `rdataUInt16`, `wireRdataLength` and `copyWireRdata`, which make no view.
 */
abstract class SlabRr implements ZoneRr {
  constructor(
    readonly slab: Buffer,
    readonly start: number,
    readonly size: number,
    readonly glue: string | undefined,
  ) {}

  get rdata(): Buffer {
    return this.slab.subarray(this.start, this.start + this.size);
  }

  abstract get text(): string;
}

/** The two octets at `at` of a record's RDATA (an SRV or SVCB priority, an SRV weight). */
export const rdataUInt16 = (rr: ZoneRr, at: number): number =>
  rr instanceof SlabRr ? rr.slab.readUInt16BE(rr.start + at) : rr.rdata.readUInt16BE(at);

/*
 * A slab record never has a compressed form, so answers test for one first: the records reach these
 * functions in a dozen shapes (slab classes and object literals), and reading `compressed` first made
 * each read a megamorphic property lookup (~1.3 % of the responder thread's time on the wide mix).
 */

/** How many RDATA octets a message carries for `rr`: its compressed form when it has one. */
export const wireRdataLength = (rr: ZoneRr): number =>
  rr instanceof SlabRr ? rr.size : (rr.compressed?.bytes.length ?? rr.rdata.length);

/** The apex pointers in the RDATA a message carries for `rr` (its compressed form's), if any. */
export const wirePointers = (rr: ZoneRr): readonly number[] | undefined =>
  rr instanceof SlabRr ? undefined : rr.compressed?.pointers;

/** RDATA up to this many octets is copied in a loop (an A or AAAA record's). */
const SHORT_COPY = 32;

/** Copies the RDATA a message carries for `rr` into `target` at `at`; returns the octets copied. */
export function copyWireRdata(rr: ZoneRr, target: Buffer, at: number): number {
  if (rr instanceof SlabRr) {
    const { slab, start, size } = rr;
    if (size > SHORT_COPY) return slab.copy(target, at, start, start + size);
    // An address: octet by octet, as Buffer#copy with a source range makes a view of the slab to copy
    // from (~80 ns against ~10; past ~100 octets the loop costs more).
    for (let i = 0; i < size; i++) target[at + i] = slab[start + i]!;
    return size;
  }
  if (rr.compressed !== undefined) return rr.compressed.bytes.copy(target, at);
  return rr.rdata.copy(target, at);
}

/** An IPv4 address record on a slab; its text is the dotted quad read back (what `isIPv4` accepted is canonical). */
class Ipv4Rr extends SlabRr {
  get text(): string {
    const { slab: s, start: i } = this;
    return `${s[i]}.${s[i + 1]}.${s[i + 2]}.${s[i + 3]}`;
  }
}

/** The four octets of a dotted quad that `isIPv4` accepted (decimal, 0-255, so no checks are left). */
function ipv4Rr(ip: string): ZoneRr {
  const start = room(4);
  const out = roomSlab.fill(0, start, start + 4);
  let at = start;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 0x2e) at++;
    else out[at] = out[at]! * 10 + (c - 0x30);
  }
  return new Ipv4Rr(out, start, 4, undefined);
}

/** An A or AAAA record for an IP address, whichever family it is. */
export function addressRr(ip: string): { type: number; rr: ZoneRr } {
  if (isIPv4(ip)) return { type: RRTYPE.A, rr: ipv4Rr(ip) };
  return { type: RRTYPE.AAAA, rr: { rdata: rdataOf('AAAA', ip), text: ip } };
}

/** An SRV record's fields; `target` is absolute (trailing dot), `glue` its relative name in the zone. */
export interface SrvFields {
  priority: number;
  weight: number;
  port: number;
  target: string;
  glue?: string;
}

/** An SRV record, encoded by dns-packet. */
export function srvRr(srv: SrvFields): ZoneRr {
  const data = { priority: srv.priority, weight: srv.weight, port: srv.port, target: srv.target };
  return srvWithRdata(srv, rdataOf('SRV', data));
}

/**
 * An SRV record whose target the caller already holds in wire form (`nameToWire(srv.target)`): for a
 * host name of letters, digits, `-` and `_` the octets are exactly dns-packet's, at a fraction of the cost.
 */
export function srvRrWithTargetWire(srv: Omit<SrvFields, 'target'>, targetWire: Buffer): ZoneRr {
  const start = room(6 + targetWire.length);
  const out = roomSlab;
  out.writeUInt16BE(srv.priority, start);
  out.writeUInt16BE(srv.weight, start + 2);
  out.writeUInt16BE(srv.port, start + 4);
  targetWire.copy(out, start + 6);
  return new SrvRr(out, start, 6 + targetWire.length, srv.glue);
}

function srvWithRdata(srv: SrvFields, rdata: Buffer): ZoneRr {
  return {
    rdata,
    text: `${srv.priority} ${srv.weight} ${srv.port} ${srv.target}`,
    ...(srv.glue === undefined ? {} : { glue: srv.glue }),
  };
}

/** An NS record pointing at an absolute name; with the zone's `apex`, an in-zone target is sent compressed. */
export function nsRr(target: string, glue?: string, apex?: string): ZoneRr {
  const rdata = rdataOf('NS', target);
  const compressed =
    apex === undefined
      ? undefined
      : compressLeadingNames(rdata, [{ name: target, wireLength: rdata.length }], apex);
  return {
    rdata,
    text: target,
    ...(glue === undefined ? {} : { glue }),
    ...(compressed === undefined ? {} : { compressed }),
  };
}

/** SOA fields; names absolute. */
export interface SoaFields {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

/** The apex SOA record; with the zone's `apex`, in-zone MNAME and RNAME are sent compressed. */
export function soaRr(soa: SoaFields, apex?: string): ZoneRr {
  const rdata = rdataOf('SOA', soa);
  const mnameLength = nameToWire(soa.mname).length;
  const names = [
    { name: soa.mname, wireLength: mnameLength },
    { name: soa.rname, wireLength: rdata.length - 20 - mnameLength },
  ];
  const compressed = apex === undefined ? undefined : compressLeadingNames(rdata, names, apex);
  return {
    rdata,
    text: `${soa.mname} ${soa.rname} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`,
    ...(compressed === undefined ? {} : { compressed }),
  };
}

/**
 * The same SOA record as `rr` (made by `soaRr`) with another serial: its RDATA and compressed form copied
 * with the serial's four octets written (the 20 octets of serial and timers end both), and the serial
 * swapped in its text. A zone's SOA changes with every update, and `soaRr` encodes both names afresh.
 */
export function withSoaSerial(rr: ZoneRr, serial: number): ZoneRr {
  const rdata = Buffer.from(rr.rdata);
  rdata.writeUInt32BE(serial, rdata.length - 20);
  let compressed: CompressedRdata | undefined;
  if (rr.compressed !== undefined) {
    const bytes = Buffer.from(rr.compressed.bytes);
    bytes.writeUInt32BE(serial, bytes.length - 20);
    compressed = { bytes, pointers: rr.compressed.pointers };
  }
  // Text: `mname rname serial refresh retry expire minimum` (names have no spaces).
  const { text } = rr;
  const serialAt = text.indexOf(' ', text.indexOf(' ') + 1) + 1;
  const serialEnd = text.indexOf(' ', serialAt);
  return {
    rdata,
    text: `${text.slice(0, serialAt)}${serial}${text.slice(serialEnd)}`,
    ...(compressed === undefined ? {} : { compressed }),
  };
}

/** Quotes one character-string for a zone file: `"` and `\` escaped, non-printable bytes as `\DDD`. */
export function quoteCharString(bytes: Buffer): string {
  let out = '"';
  for (const byte of bytes) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte > 0x7e) out += `\\${String(byte).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/** A TXT record of character-strings, each at most 255 bytes. */
export function txtRr(strings: readonly string[]): ZoneRr {
  const chunks = strings.map((s) => Buffer.from(s, 'utf8'));
  if (chunks.some((c) => c.length > 255)) throw new RangeError('a TXT character-string is at most 255 bytes');
  return { rdata: rdataOf('TXT', chunks), text: chunks.map(quoteCharString).join(' ') };
}

/** Presentation text of an uncompressed wire name of ASCII labels, absolute (trailing dot). */
function wireNameText(bytes: Buffer, offset: number): string {
  let out = '';
  for (let at = offset; bytes[at]! !== 0; at += bytes[at]! + 1)
    out += `${bytes.toString('latin1', at + 1, at + 1 + bytes[at]!)}.`;
  return out === '' ? '.' : out;
}

/**
 * An SRV record whose text is read back from its RDATA (only zone-file export reads it): a zone holds
 * several per instance, so each is its octets and glue name, nothing more.
 */
class SrvRr extends SlabRr {
  get text(): string {
    const { slab: s, start: i } = this;
    return `${s.readUInt16BE(i)} ${s.readUInt16BE(i + 2)} ${s.readUInt16BE(i + 4)} ${wireNameText(s, i + 6)}`;
  }
}

/** An SVCB record whose presentation text is decoded from its RDATA on read (zone-file export only). */
class SvcbRr extends SlabRr {
  get text(): string {
    return formatSvcbPresentation(decodeSvcbRdata(this.rdata));
  }
}

/** A copy of `bytes` on a slab (`roomSlab`): its offset there. */
function pooled(bytes: Uint8Array): number {
  const start = room(bytes.length);
  roomSlab.set(bytes, start);
  return start;
}

/** An SVCB record via the RFC 9460 codec; `glue` names the in-zone target (or owner, for target "."). */
export function svcbRr(svcb: SvcbRecord, glue?: string): ZoneRr {
  const rdata = encodeSvcbRdata(svcb);
  const start = pooled(rdata);
  return new SvcbRr(roomSlab, start, rdata.length, glue);
}

/** A record's RDATA as base64 text (a replica receives an SVCB record so, not re-encoded: `svcbRrFromBase64`). */
export function rdataBase64(rr: ZoneRr): string {
  return rr instanceof SlabRr
    ? rr.slab.toString('base64', rr.start, rr.start + rr.size)
    : rr.rdata.toString('base64');
}

/** An SVCB record from RDATA that `rdataBase64` wrote, decoded straight onto a slab. */
export function svcbRrFromBase64(rdata: string, glue?: string): ZoneRr {
  const length = Buffer.byteLength(rdata, 'base64');
  const start = room(length);
  roomSlab.write(rdata, start, length, 'base64');
  return new SvcbRr(roomSlab, start, length, glue);
}

/** Copies octets `from` to `to` of `source` into `target` at `at`: a loop, as Buffer#copy with a source range makes a view to copy from. */
function copyOctets(source: Buffer, from: number, to: number, target: Buffer, at: number): void {
  for (let i = from; i < to; i++) target[at++] = source[i]!;
}

/**
 * The same ServiceMode SVCB record as `rr` (whose TargetName is ".") with TargetName `target` in wire
 * form, and SvcPriority `priority` when given: the SvcParams' octets are copied as they are, with no
 * view of `rr`'s slab (a registration lays one such record per capability set, on the thread that
 * holds the laid-out zone: the responder thread by default).
 */
export function withSvcTarget(rr: ZoneRr, target: Buffer, glue?: string, priority?: number): ZoneRr {
  const source = rr instanceof SlabRr ? rr.slab : rr.rdata;
  const from = rr instanceof SlabRr ? rr.start : 0;
  const size = rdataSize(rr);
  if (source[from + 2] !== 0) throw new RangeError('withSvcTarget takes a record whose TargetName is "."');
  const length = size - 1 + target.length;
  const start = room(length);
  const out = roomSlab;
  if (priority === undefined) copyOctets(source, from, from + 2, out, start);
  else out.writeUInt16BE(priority, start);
  copyOctets(target, 0, target.length, out, start + 2);
  copyOctets(source, from + 3, from + size, out, start + 2 + target.length);
  return new SvcbRr(out, start, length, glue);
}

/** The octets of `rr`'s RDATA, read without making a view of a slab record's. */
const rdataSize = (rr: ZoneRr): number => (rr instanceof SlabRr ? rr.size : rr.rdata.length);

/** A copy of `rr`'s RDATA on a slab (`roomSlab`): its offset there. A slab record's is copied without a view (a weight change makes two or three such copies). */
function pooledRdata(rr: ZoneRr): number {
  if (!(rr instanceof SlabRr)) return pooled(rr.rdata);
  const start = room(rr.size);
  rr.slab.copy(roomSlab, start, rr.start, rr.start + rr.size);
  return start;
}

/** The same SVCB record with another SvcPriority: the priority is the RDATA's first two octets. */
export function withSvcPriority(rr: ZoneRr, priority: number): ZoneRr {
  const start = pooledRdata(rr);
  roomSlab.writeUInt16BE(priority, start);
  return new SvcbRr(roomSlab, start, rdataSize(rr), rr.glue);
}

/** The same SRV record with another priority and weight: the RDATA's first four octets. */
export function withSrvWeight(rr: ZoneRr, priority: number, weight: number): ZoneRr {
  const start = pooledRdata(rr);
  roomSlab.writeUInt16BE(priority, start);
  roomSlab.writeUInt16BE(weight, start + 2);
  return new SrvRr(roomSlab, start, rdataSize(rr), rr.glue);
}

/** Whether two records carry the same octets (a republished weight that did not move is left alone). */
export function sameRdata(a: ZoneRr | undefined, b: ZoneRr): boolean {
  return a?.rdata.equals(b.rdata) === true;
}
