import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';
import dnsPacket, { type Packet, type Question } from 'dns-packet';

/** Where DNS questions go. */
export interface DnsServer {
  host: string;
  port: number;
  timeoutMs: number;
}

/** Asks one question over UDP with EDNS0 (4096 bytes), retrying over TCP when the answer is truncated. */
export async function queryDns(server: DnsServer, question: Question): Promise<Packet> {
  const id = Math.floor(Math.random() * 65_536);
  const query: Packet = {
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [question],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096 } as never],
  };
  const answer = await overUdp(server, dnsPacket.encode(query), id);
  if (((answer.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE) === 0) return answer;
  return overTcp(server, dnsPacket.streamEncode(query), id);
}

function overUdp(server: DnsServer, message: Buffer, id: number): Promise<Packet> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
    const timer = setTimeout(
      () => done(new Error(`DNS timeout after ${server.timeoutMs} ms`)),
      server.timeoutMs,
    );
    const done = (error: Error | null, packet?: Packet) => {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(packet!);
    };
    socket.on('error', (error) => done(error));
    socket.on('message', (buffer) => {
      try {
        const packet = dnsPacket.decode(buffer);
        if (packet.id === id) done(null, packet);
      } catch {
        // Not a DNS answer we can read: keep waiting for ours until the timeout.
      }
    });
    socket.send(message, server.port, server.host);
  });
}

function overTcp(server: DnsServer, message: Buffer, id: number): Promise<Packet> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    let received = Buffer.alloc(0);
    const timer = setTimeout(
      () => done(new Error(`DNS (TCP) timeout after ${server.timeoutMs} ms`)),
      server.timeoutMs,
    );
    const done = (error: Error | null, packet?: Packet) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(packet!);
    };
    socket.on('error', (error) => done(error));
    socket.on('connect', () => socket.write(message));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2 || received.length < 2 + received.readUInt16BE(0)) return;
      try {
        const packet = dnsPacket.streamDecode(received);
        if (packet.id === id) done(null, packet);
        else done(new Error('DNS (TCP) answer for another query'));
      } catch (error) {
        done(error as Error);
      }
    });
  });
}
