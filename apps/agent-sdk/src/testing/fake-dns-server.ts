import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import dnsPacket from 'dns-packet';
import { type SvcbRecord, toDnsPacketAnswer } from '../svcb/index.js';

/** A record the fake server answers with. */
export type FakeRecord =
  | { type: 'SRV'; name: string; priority: number; weight: number; port: number; target: string }
  | { type: 'A'; name: string; address: string }
  | { type: 'SVCB'; name: string; record: SvcbRecord }
  | { type: 'TXT'; name: string; strings: string[] };

/**
 * An in-process authoritative DNS server for unit tests: UDP and TCP on 127.0.0.1, answers from a
 * record list, A records of SRV/SVCB targets in the additional section, TC when UDP would exceed 512 bytes.
 */
export class FakeDnsServer {
  records: FakeRecord[] = [];
  /** Questions received, as `name TYPE` strings, per transport. */
  readonly asked: { udp: string[]; tcp: string[] } = { udp: [], tcp: [] };
  /** When false, the additional section is left empty. */
  withAdditionals = true;
  private udp: Socket | null = null;
  private tcp: Server | null = null;
  private readonly sockets = new Set<import('node:net').Socket>();
  /** TCP connections accepted so far. */
  tcpConnections = 0;
  port = 0;

  /** Binds UDP and TCP on the same free port. */
  async start(): Promise<void> {
    for (;;) {
      const udp = createSocket('udp4');
      await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
      const port = udp.address().port;
      const tcp = createServer((sock) => this.serveTcp(sock));
      const bound = await new Promise<boolean>((resolve) => {
        tcp.once('error', () => resolve(false));
        tcp.listen(port, '127.0.0.1', () => resolve(true));
      });
      if (!bound) {
        udp.close();
        continue;
      }
      udp.on('message', (msg, rinfo) => {
        const reply = this.answer(msg, 'udp');
        if (reply) udp.send(reply, rinfo.port, rinfo.address);
      });
      this.udp = udp;
      this.tcp = tcp;
      this.port = port;
      return;
    }
  }

  async stop(): Promise<void> {
    this.udp?.close();
    this.dropTcpConnections();
    await new Promise<void>((resolve) => (this.tcp ? this.tcp.close(() => resolve()) : resolve()));
  }

  /** Closes every open TCP connection, as a server's idle timeout would. */
  dropTcpConnections(): void {
    for (const sock of this.sockets) sock.destroy();
  }

  private serveTcp(sock: import('node:net').Socket): void {
    let buf = Buffer.alloc(0);
    this.tcpConnections++;
    this.sockets.add(sock);
    sock.on('close', () => this.sockets.delete(sock));
    sock.on('error', () => sock.destroy());
    sock.on('data', (data) => {
      buf = Buffer.concat([buf, data]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const len = buf.readUInt16BE(0);
        const reply = this.answer(buf.subarray(2, 2 + len), 'tcp');
        buf = buf.subarray(2 + len);
        if (reply) {
          const prefix = Buffer.alloc(2);
          prefix.writeUInt16BE(reply.length);
          sock.write(Buffer.concat([prefix, reply]));
        }
      }
    });
  }

  private answer(msg: Buffer, transport: 'udp' | 'tcp'): Buffer | null {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return null;
    }
    const q = query.questions?.[0];
    if (!q) return null;
    const type = String(q.type) === 'UNKNOWN_64' ? 'SVCB' : String(q.type);
    const name = q.name.toLowerCase();
    this.asked[transport].push(`${name} ${type}`);
    const matching = this.records.filter((r) => r.name.toLowerCase() === name && r.type === type);
    const targets = new Set(
      matching.flatMap((r) =>
        r.type === 'SRV' ? [r.target] : r.type === 'SVCB' ? [r.record.target.replace(/\.$/, '')] : [],
      ),
    );
    const additionals = this.withAdditionals
      ? this.records.filter((r) => r.type === 'A' && targets.has(r.name)).map(toAnswer)
      : [];
    const exists = this.records.some((r) => r.name.toLowerCase() === name);
    const base = {
      type: 'response' as const,
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (exists ? 0 : 3),
      questions: [q],
    };
    const full = dnsPacket.encode({ ...base, answers: matching.map(toAnswer), additionals });
    if (transport === 'udp' && full.length > 512) {
      return dnsPacket.encode({ ...base, flags: base.flags | dnsPacket.TRUNCATED_RESPONSE, answers: [] });
    }
    return full;
  }
}

function toAnswer(r: FakeRecord): dnsPacket.Answer {
  if (r.type === 'SVCB') return toDnsPacketAnswer({ name: r.name, ttl: 30, record: r.record });
  if (r.type === 'A') return { type: 'A', name: r.name, ttl: 30, class: 'IN', data: r.address };
  if (r.type === 'TXT') return { type: 'TXT', name: r.name, ttl: 30, class: 'IN', data: r.strings };
  return {
    type: 'SRV',
    name: r.name,
    ttl: 30,
    class: 'IN',
    data: { priority: r.priority, weight: r.weight, port: r.port, target: r.target },
  };
}
