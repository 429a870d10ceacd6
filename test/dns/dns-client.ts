import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { type DecodedMessage, dnsPacket, type PacketInput } from './dns-packet.js';

/** A decoded reply. */
export type Reply = DecodedMessage;

/** A query with EDNS (1232) for `name`/`type`; SVCB is `UNKNOWN_64` in dns-packet. */
export function queryPacket(name: string, type: string, id = Math.floor(Math.random() * 65_536)): Buffer {
  const packet: PacketInput = {
    type: 'query',
    id,
    questions: [{ name, type }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [] }],
  };
  return dnsPacket.encode(packet);
}

/** Sends raw bytes over UDP and resolves with the raw reply (or null after `timeoutMs`). */
export function udpExchange(port: number, msg: Buffer, timeoutMs = 1000): Promise<Buffer | null> {
  const socket = createSocket('udp4');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.close();
      resolve(null);
    }, timeoutMs);
    socket.once('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      resolve(reply);
    });
    socket.send(msg, port, '127.0.0.1');
  });
}

/** One query over UDP. */
export async function udpQuery(port: number, name: string, type: string): Promise<Reply> {
  const reply = await udpExchange(port, queryPacket(name, type));
  if (reply === null) throw new Error(`no UDP answer for ${name} ${type}`);
  return dnsPacket.decode(reply);
}

/** One query over TCP (length-prefixed). */
export function tcpQuery(port: number, name: string, type: string): Promise<Reply> {
  const msg = queryPacket(name, type);
  const frame = Buffer.alloc(2 + msg.length);
  frame.writeUInt16BE(msg.length, 0);
  msg.copy(frame, 2);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let pending = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TCP answer for ${name} ${type}`));
    }, 3000);
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      if (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(dnsPacket.decode(pending.subarray(2, 2 + pending.readUInt16BE(0))));
      }
    });
    socket.write(frame);
  });
}
