import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import dnsPacket from 'dns-packet';

/** The record types the capability index asks for. */
export type DnsQueryType = 'SVCB' | 'SRV' | 'A';

const TYPE_CODES: Record<DnsQueryType, number> = { SVCB: 64, SRV: 33, A: 1 };

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
  /** True when the UDP answer was truncated and the question was asked again over TCP. */
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

function parseResponse(buf: Buffer, id: number, viaTcp: boolean): Result<DnsResponse & { tc: boolean }> {
  let packet: dnsPacket.DecodedPacket & { rcode?: string };
  try {
    packet = dnsPacket.decode(buf) as dnsPacket.DecodedPacket & { rcode?: string };
  } catch (cause) {
    return err(new ReachError('UNAVAILABLE', 'DNS answer could not be decoded', { cause }));
  }
  if (packet.id !== id) return err(new ReachError('UNAVAILABLE', 'DNS answer id does not match the query'));
  return ok({
    rcode: packet.rcode ?? 'NOERROR',
    answers: toRecords(packet.answers),
    additionals: toRecords(packet.additionals),
    viaTcp,
    tc: packet.flag_tc,
  });
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

function tcpExchange(opts: Required<DnsClientOptions>, query: Buffer): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: opts.host, port: opts.port });
    let chunks = Buffer.alloc(0);
    const timer = setTimeout(() => finish(null), opts.timeoutMs);
    function finish(value: Buffer | null): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    }
    socket.on('error', () => finish(null));
    socket.on('connect', () => {
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(query.length);
      socket.write(Buffer.concat([prefix, query]));
    });
    socket.on('data', (data) => {
      chunks = Buffer.concat([chunks, data]);
      if (chunks.length >= 2 && chunks.length >= 2 + chunks.readUInt16BE(0)) {
        finish(chunks.subarray(2, 2 + chunks.readUInt16BE(0)));
      }
    });
    socket.on('end', () => finish(null));
  });
}

/** A stub resolver for one server: UDP with EDNS0, asked again over TCP when the answer is truncated. */
export class UdpDnsClient implements DnsClient {
  private readonly opts: Required<DnsClientOptions>;

  constructor(options: DnsClientOptions) {
    this.opts = { timeoutMs: 1000, udpTries: 2, ...options };
  }

  async query(name: string, type: DnsQueryType): Promise<Result<DnsResponse>> {
    const id = randomInt(0, 65_536);
    const query = encodeQuery(id, name, type);
    let answer: Buffer | null = null;
    for (let i = 0; i < this.opts.udpTries && answer === null; i++)
      answer = await udpExchange(this.opts, query);
    if (answer === null) return this.overTcp(id, query, name);
    const parsed = parseResponse(answer, id, false);
    if (!parsed.ok) return parsed;
    if (parsed.value.tc) return this.overTcp(id, query, name);
    return ok(strip(parsed.value));
  }

  private async overTcp(id: number, query: Buffer, name: string): Promise<Result<DnsResponse>> {
    const answer = await tcpExchange(this.opts, query);
    if (answer === null) {
      return err(
        new ReachError(
          'UNAVAILABLE',
          `DNS server ${this.opts.host}:${this.opts.port} did not answer ${name}`,
        ),
      );
    }
    const parsed = parseResponse(answer, id, true);
    return parsed.ok ? ok(strip(parsed.value)) : parsed;
  }
}

function strip(value: DnsResponse & { tc: boolean }): DnsResponse {
  const { tc: _tc, ...rest } = value;
  return rest;
}

/** The numeric type code of a query type. */
export function typeCode(type: DnsQueryType): number {
  return TYPE_CODES[type];
}
