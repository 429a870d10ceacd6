import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import dnsPacket from 'dns-packet';
import { err, ok, ReachError, type Result } from '../protocol/errors.js';
import { DnsTcpChannel } from './dns-tcp-channel.js';

/** The record types the capability index asks for. */
export type DnsQueryType = 'SVCB' | 'SRV' | 'A' | 'TXT';

/** One resource record as the index reads it; `data` is decoded for SRV/A, raw RDATA otherwise. */
export interface DnsRecord {
  name: string;
  type: number;
  ttl: number;
  data: unknown;
}

/** A DNS answer: the response code plus the answer and additional sections. */
export interface DnsResponse {
  rcode: string;
  answers: DnsRecord[];
  additionals: DnsRecord[];
  /** True when the answer came over TCP (the UDP answer was, or is known to be, truncated). */
  viaTcp: boolean;
}

/** Asks one question; failures are values so a dead server never throws into discovery. */
export interface DnsClient {
  query(name: string, type: DnsQueryType): Promise<Result<DnsResponse>>;
}

/** Where and how patiently to ask. */
export interface DnsClientOptions {
  host: string;
  port: number;
  /** Per-try timeout in ms. @default 1000 */
  timeoutMs?: number;
  /** UDP tries before giving up. @default 2 */
  udpTries?: number;
  /** How long the kept TCP connection stays open without questions. @default 5000 */
  tcpIdleMs?: number;
  /** How long a question whose UDP answer was truncated is asked over TCP directly. @default 60000 */
  truncatedMemoMs?: number;
}

const EDNS_PAYLOAD = 1232;
const KNOWN_TYPES: Record<string, number> = { A: 1, NS: 2, CNAME: 5, SOA: 6, TXT: 16, AAAA: 28, SRV: 33 };

function encodeQuery(id: number, name: string, type: DnsQueryType): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    // dns-packet names unknown types UNKNOWN_<code>; SVCB (64) is one of them.
    questions: [{ name, type: (type === 'SVCB' ? 'UNKNOWN_64' : type) as 'A' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: EDNS_PAYLOAD } as dnsPacket.Answer],
  });
}

function toRecords(list: dnsPacket.Answer[] | undefined): DnsRecord[] {
  return (list ?? [])
    .filter((a) => a.type !== 'OPT')
    .map((a) => {
      const rr = a as { name: string; type: string; ttl?: number; data?: unknown };
      const code = rr.type.startsWith('UNKNOWN_') ? Number(rr.type.slice(8)) : (KNOWN_TYPES[rr.type] ?? -1);
      return { name: rr.name.toLowerCase(), type: code, ttl: rr.ttl ?? 0, data: rr.data };
    });
}

/** A decoded answer and whether it was truncated. */
type Parsed = { response: DnsResponse; tc: boolean };

function decodeResponse(buf: Buffer, viaTcp: boolean): Result<Parsed> {
  let packet: dnsPacket.DecodedPacket & { rcode?: string };
  try {
    packet = dnsPacket.decode(buf) as dnsPacket.DecodedPacket & { rcode?: string };
  } catch (cause) {
    return err(new ReachError('UNAVAILABLE', 'DNS answer could not be decoded', { cause }));
  }
  return ok({
    response: {
      rcode: packet.rcode ?? 'NOERROR',
      answers: toRecords(packet.answers),
      additionals: toRecords(packet.additionals),
      viaTcp,
    },
    tc: packet.flag_tc,
  });
}

/**
 * Decoded answers by their bytes after the id: an authoritative server sends the same bytes until the
 * records change, so a repeated answer is not decoded again (and is the same object, for later memos).
 */
class DecodedAnswers {
  private readonly byBytes = new Map<string, Parsed>();

  parse(buf: Buffer, id: number, viaTcp: boolean): Result<Parsed> {
    if (buf.length < 12 || buf.readUInt16BE(0) !== id)
      return err(new ReachError('UNAVAILABLE', 'DNS answer is too short or its id does not match the query'));
    const key = `${viaTcp ? 't' : 'u'}${buf.toString('latin1', 2)}`;
    const known = this.byBytes.get(key);
    if (known !== undefined) return ok(known);
    const decoded = decodeResponse(buf, viaTcp);
    if (!decoded.ok) return decoded;
    // Only the zone's few questions repeat; the bound keeps a changing zone from growing the map.
    if (this.byBytes.size >= 256) this.byBytes.clear();
    this.byBytes.set(key, decoded.value);
    return decoded;
  }
}

function udpExchange(opts: Required<DnsClientOptions>, query: Buffer): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const socket = createSocket(opts.host.includes(':') ? 'udp6' : 'udp4');
    const timer = setTimeout(() => finish(null), opts.timeoutMs);
    function finish(value: Buffer | null): void {
      clearTimeout(timer);
      socket.close();
      resolve(value);
    }
    socket.on('error', () => finish(null));
    socket.on('message', (msg) => finish(msg));
    socket.send(query, opts.port, opts.host, (e) => {
      if (e) finish(null);
    });
  });
}

/**
 * A stub resolver for one server: UDP with EDNS0; a truncated answer is asked again over one kept,
 * pipelined TCP connection, and a question known to truncate goes straight to TCP for a while.
 */
export class UdpDnsClient implements DnsClient {
  private readonly opts: Required<DnsClientOptions>;
  private readonly tcp: DnsTcpChannel;
  /** Questions whose UDP answer was truncated, until when to ask them over TCP directly. */
  private readonly truncated = new Map<string, number>();
  private readonly decoded = new DecodedAnswers();

  constructor(options: DnsClientOptions) {
    this.opts = { timeoutMs: 1000, udpTries: 2, tcpIdleMs: 5000, truncatedMemoMs: 60_000, ...options };
    this.tcp = new DnsTcpChannel(this.opts.host, this.opts.port, this.opts.tcpIdleMs);
  }

  async query(name: string, type: DnsQueryType): Promise<Result<DnsResponse>> {
    const key = `${name.toLowerCase()}|${type}`;
    if ((this.truncated.get(key) ?? 0) > performance.now()) return this.overTcp(name, type);
    const id = randomInt(0, 65_536);
    const query = encodeQuery(id, name, type);
    let answer: Buffer | null = null;
    for (let i = 0; i < this.opts.udpTries && answer === null; i++)
      answer = await udpExchange(this.opts, query);
    if (answer === null) return this.overTcp(name, type);
    const parsed = this.decoded.parse(answer, id, false);
    if (!parsed.ok) return parsed;
    if (parsed.value.tc) {
      this.rememberTruncated(key);
      return this.overTcp(name, type);
    }
    return ok(parsed.value.response);
  }

  /** Closes the kept TCP connection (it also closes itself when idle). */
  close(): void {
    this.tcp.close();
  }

  /** Asks over the kept connection; a connection the server had closed is replaced once. */
  private async overTcp(name: string, type: DnsQueryType): Promise<Result<DnsResponse>> {
    for (let attempt = 0; attempt < 2; attempt++) {
      let id = randomInt(0, 65_536);
      while (this.tcp.busy(id)) id = randomInt(0, 65_536);
      const res = await this.tcp.exchange(id, encodeQuery(id, name, type), this.opts.timeoutMs);
      if (res.ok) {
        const parsed = this.decoded.parse(res.answer, id, true);
        return parsed.ok ? ok(parsed.value.response) : parsed;
      }
      if (res.failure === 'timeout') break;
    }
    return err(
      new ReachError('UNAVAILABLE', `DNS server ${this.opts.host}:${this.opts.port} did not answer ${name}`),
    );
  }

  private rememberTruncated(key: string): void {
    // Question names come from the catalog and DNS targets; the bound only guards against a flood.
    if (this.truncated.size >= 1024) this.truncated.clear();
    this.truncated.set(key, performance.now() + this.opts.truncatedMemoMs);
  }
}
