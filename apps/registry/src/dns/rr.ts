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

/** The RDATA octets a message carries for `rr`. */
export const wireRdata = (rr: ZoneRr): Buffer => rr.compressed?.bytes ?? rr.rdata;

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

/**
 * Room for RDATA the zone keeps: cut from slabs that hold nothing else. A buffer of its own costs more
 * than its octets, and a slice of Node's shared pool keeps that pool's whole 8 KiB alive, most of it
 * other code's garbage (1 KB per instance at 10,000 instances).
 */
function rdataBuffer(length: number): Buffer {
  if (length > SLAB_BYTES / 8) return Buffer.allocUnsafeSlow(length);
  if (slabUsed + length > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + length);
  slabUsed += length;
  return out;
}

/** The four octets of a dotted quad that `isIPv4` accepted (decimal, 0-255, so no checks are left). */
function ipv4Rdata(ip: string): Buffer {
  const out = rdataBuffer(4).fill(0);
  let at = 0;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 0x2e) at++;
    else out[at] = out[at]! * 10 + (c - 0x30);
  }
  return out;
}

/** An A or AAAA record for an IP address, whichever family it is. */
export function addressRr(ip: string): { type: number; rr: ZoneRr } {
  if (isIPv4(ip)) return { type: RRTYPE.A, rr: { rdata: ipv4Rdata(ip), text: ip } };
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
export function srvRrWithTargetWire(srv: SrvFields, targetWire: Buffer): ZoneRr {
  const rdata = rdataBuffer(6 + targetWire.length);
  rdata.writeUInt16BE(srv.priority, 0);
  rdata.writeUInt16BE(srv.weight, 2);
  rdata.writeUInt16BE(srv.port, 4);
  targetWire.copy(rdata, 6);
  return new SrvRr(rdata, srv.glue);
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
class SrvRr implements ZoneRr {
  constructor(
    readonly rdata: Buffer,
    readonly glue: string | undefined,
  ) {}

  get text(): string {
    const { rdata } = this;
    return `${rdata.readUInt16BE(0)} ${rdata.readUInt16BE(2)} ${rdata.readUInt16BE(4)} ${wireNameText(rdata, 6)}`;
  }
}

/** An SVCB record whose presentation text is decoded from its RDATA on read (zone-file export only). */
class SvcbRr implements ZoneRr {
  constructor(
    readonly rdata: Buffer,
    readonly glue: string | undefined,
  ) {}

  get text(): string {
    return formatSvcbPresentation(decodeSvcbRdata(this.rdata));
  }
}

/** A copy of `bytes` on the zone's RDATA slabs. */
function pooled(bytes: Uint8Array, length = bytes.length): Buffer {
  const out = rdataBuffer(length);
  out.set(bytes.subarray(0, Math.min(length, bytes.length)));
  return out;
}

/** An SVCB record via the RFC 9460 codec; `glue` names the in-zone target (or owner, for target "."). */
export function svcbRr(svcb: SvcbRecord, glue?: string): ZoneRr {
  return new SvcbRr(pooled(encodeSvcbRdata(svcb)), glue);
}

/**
 * The same ServiceMode SVCB record as `rr` (whose TargetName is ".") with TargetName `target` in wire
 * form: the SvcParams' octets are reused as they are.
 */
export function withSvcTarget(rr: ZoneRr, target: Buffer, glue?: string): ZoneRr {
  if (rr.rdata[2] !== 0) throw new RangeError('withSvcTarget takes a record whose TargetName is "."');
  const rdata = rdataBuffer(rr.rdata.length - 1 + target.length);
  rr.rdata.copy(rdata, 0, 0, 2);
  target.copy(rdata, 2);
  rr.rdata.copy(rdata, 2 + target.length, 3);
  return new SvcbRr(rdata, glue);
}

/** The same SVCB record with another SvcPriority: the priority is the RDATA's first two octets. */
export function withSvcPriority(rr: ZoneRr, priority: number): ZoneRr {
  const rdata = pooled(rr.rdata);
  rdata.writeUInt16BE(priority, 0);
  return new SvcbRr(rdata, rr.glue);
}

/** The same SRV record with another priority and weight: the RDATA's first four octets. */
export function withSrvWeight(rr: ZoneRr, priority: number, weight: number): ZoneRr {
  const rdata = pooled(rr.rdata);
  rdata.writeUInt16BE(priority, 0);
  rdata.writeUInt16BE(weight, 2);
  return new SrvRr(rdata, rr.glue);
}

/** Whether two records carry the same octets (a republished weight that did not move is left alone). */
export function sameRdata(a: ZoneRr | undefined, b: ZoneRr): boolean {
  return a?.rdata.equals(b.rdata) === true;
}
