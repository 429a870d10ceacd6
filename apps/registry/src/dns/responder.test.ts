import { createSocket } from 'node:dgram';
import { connect, type Socket } from 'node:net';
import dnsPacket, { type DecodedPacket } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { udpAsk } from '../testing/udp-ask.js';
import { answerUdp, type DnsResponder, startDnsResponder, UDP_SEND_CHECK_EVERY } from './responder.js';
import { Zone } from './zone.js';

type Reply = DecodedPacket & { rcode: string; answers: { type: string }[] };

function query(name: string, type: string, id = 1): Buffer {
  return dnsPacket.encode({
    type: 'query',
    id,
    questions: [{ name, type: type as 'A' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [] } as never],
  });
}

async function udpAskReply(port: number, msg: Buffer): Promise<Reply> {
  return dnsPacket.decode(await udpAsk(port, msg)) as Reply;
}

function frame(msg: Buffer): Buffer {
  const out = Buffer.alloc(2 + msg.length);
  out.writeUInt16BE(msg.length, 0);
  msg.copy(out, 2);
  return out;
}

/** Reads `count` length-prefixed replies from a TCP connection. */
function readFrames(socket: Socket, count: number): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    let pending = Buffer.alloc(0);
    const replies: Reply[] = [];
    const timer = setTimeout(() => reject(new Error(`got ${replies.length} of ${count} TCP answers`)), 3000);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        replies.push(dnsPacket.decode(pending.subarray(2, 2 + pending.readUInt16BE(0))) as Reply);
        pending = pending.subarray(2 + pending.readUInt16BE(0));
      }
      if (replies.length === count) {
        clearTimeout(timer);
        resolve(replies);
      }
    });
  });
}

function closed(socket: Socket): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => socket.once('close', () => resolve(Date.now() - started)));
}

describe('startDnsResponder', () => {
  let responder: DnsResponder;
  const source = new FakeInstanceSource();

  beforeAll(async () => {
    source.put(
      ...Array.from({ length: 60 }, (_, i) =>
        makeInstance(`worker-${String(i).padStart(4, '0')}`, {
          host: `10.3.0.${i + 1}`,
          capabilities: ['crunch'],
        }),
      ),
    );
    const zone = new Zone(source, { zone: 'agents.internal', ttlSeconds: 15 });
    responder = await startDnsResponder({ zone, port: 0, tcpIdleTimeoutMs: 300, maxQueryBytes: 512 });
  });
  afterAll(() => responder.stop());

  it('answers over UDP and TCP on one port', async () => {
    expect(responder.port).toBeGreaterThan(0);
    const udp = await udpAskReply(responder.port, query('worker-0001.agents.internal', 'A'));
    expect(udp.answers).toHaveLength(1);
    const socket = connect(responder.port, '127.0.0.1');
    const replies = readFrames(socket, 1);
    socket.write(frame(query('worker-0001.agents.internal', 'A')));
    expect((await replies)[0]!.answers).toHaveLength(1);
    socket.destroy();
  });

  it('truncates a large UDP answer and gives it whole over TCP', async () => {
    const udp = await udpAskReply(
      responder.port,
      query('_crunch._a2a._agents.agents.internal', 'UNKNOWN_64'),
    );
    expect(udp.flag_tc).toBe(true);
    const socket = connect(responder.port, '127.0.0.1');
    const replies = readFrames(socket, 1);
    socket.write(frame(query('_crunch._a2a._agents.agents.internal', 'UNKNOWN_64')));
    expect((await replies)[0]!.answers).toHaveLength(60);
    socket.destroy();
  });

  it('answers several pipelined queries on one connection, in order, however the bytes are split', async () => {
    const socket = connect(responder.port, '127.0.0.1');
    const replies = readFrames(socket, 3);
    const bytes = Buffer.concat([
      frame(query('worker-0001.agents.internal', 'A', 11)),
      frame(query('nobody.agents.internal', 'A', 12)),
      frame(query('_crunch._tcp.agents.internal', 'SRV', 13)),
    ]);
    // One byte, then the rest in two uneven pieces.
    socket.write(bytes.subarray(0, 1));
    await new Promise((r) => setTimeout(r, 20));
    socket.write(bytes.subarray(1, 40));
    socket.write(bytes.subarray(40));
    const got = await replies;
    expect(got.map((r) => [r.id, r.rcode])).toEqual([
      [11, 'NOERROR'],
      [12, 'NXDOMAIN'],
      [13, 'NOERROR'],
    ]);
    expect(got[2]!.answers).toHaveLength(60);
    socket.destroy();
  });

  it('closes idle connections and connections announcing oversized messages', async () => {
    const idle = connect(responder.port, '127.0.0.1');
    const idleMs = await closed(idle);
    expect(idleMs).toBeGreaterThanOrEqual(250);
    expect(idleMs).toBeLessThan(2000);
    const greedy = connect(responder.port, '127.0.0.1');
    const wasClosed = closed(greedy);
    greedy.write(Buffer.from([0xff, 0xff, 1, 2, 3]));
    expect(await wasClosed).toBeLessThan(250);
  });

  it('keeps serving after garbage on both transports', async () => {
    const junk = createSocket('udp4');
    junk.send(Buffer.from('not dns at all, not at all'), responder.port, '127.0.0.1');
    junk.send(Buffer.alloc(3), responder.port, '127.0.0.1', () => junk.close());
    const socket = connect(responder.port, '127.0.0.1');
    const reply = readFrames(socket, 1);
    // A query header (opcode 0, one question) followed by junk where the question should be.
    socket.write(
      frame(Buffer.concat([Buffer.from([0, 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), Buffer.from('garbage!')])),
    );
    expect((await reply)[0]!.rcode).toBe('FORMERR');
    socket.destroy();
    expect((await udpAskReply(responder.port, query('agents.internal', 'SOA'))).answers).toHaveLength(1);
  });

  it('stops cleanly, closing open connections and freeing the port', async () => {
    const zone = new Zone(new FakeInstanceSource(), { zone: 'agents.internal', ttlSeconds: 15 });
    const own = await startDnsResponder({ zone, port: 0 });
    const socket = connect(own.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const wasClosed = closed(socket);
    await own.stop();
    await wasClosed;
    const again = await startDnsResponder({ zone, port: own.port });
    expect(again.port).toBe(own.port);
    await again.stop();
  });
});

describe('answerUdp', () => {
  /** A UDP socket on loopback answering for one instance, `worker-0001`; its send errors are collected. */
  async function answeringUdpSocket() {
    const source = new FakeInstanceSource();
    source.put(makeInstance('worker-0001', { host: '10.3.0.1', capabilities: ['crunch'] }));
    const zone = new Zone(source, { zone: 'agents.internal', ttlSeconds: 15 });
    const server = createSocket('udp4');
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
    const errors: Error[] = [];
    answerUdp(server, zone, (error) => errors.push(error));
    return { server, errors };
  }

  it('drops a datagram from port 0 (only a forged one has it) and answers the next one', async () => {
    const { server, errors } = await answeringUdpSocket();
    try {
      const msg = query('worker-0001.agents.internal', 'A');
      // dgram throws on a send to port 0: the listener must not get that far.
      expect(() =>
        server.emit('message', msg, { address: '127.0.0.1', family: 'IPv4', port: 0, size: msg.length }),
      ).not.toThrow();
      const reply = await udpAskReply(server.address().port, msg);
      expect(reply.answers).toHaveLength(1);
      expect(errors).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('reports the error of one send in UDP_SEND_CHECK_EVERY (the others go without a callback)', async () => {
    const { server, errors } = await answeringUdpSocket();
    try {
      const msg = query('worker-0001.agents.internal', 'A');
      // A reply to the broadcast address from a socket without SO_BROADCAST fails (EACCES).
      const from = { address: '255.255.255.255', family: 'IPv4', port: 9, size: msg.length };
      for (let i = 0; i < 2 * UDP_SEND_CHECK_EVERY; i++) server.emit('message', msg, from);
      await new Promise((resolve) => setImmediate(resolve));
      expect(errors.map((error) => (error as NodeJS.ErrnoException).code)).toEqual(['EACCES', 'EACCES']);
      // The socket still answers.
      expect((await udpAskReply(server.address().port, msg)).answers).toHaveLength(1);
    } finally {
      server.close();
    }
  });
});
