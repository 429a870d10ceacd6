import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { fuzzPacket, seededRandom } from '@agent-reach/registry/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tcpQuery, udpQuery } from './dns-client.js';
import { dnsPacket } from './dns-packet.js';
import { agentBody, type RegistryWithDns, startRegistryWithDns } from './registry-harness.js';

let env: RegistryWithDns;

beforeAll(async () => {
  // Leases outlive the run: 3,000 fuzz round trips on a loaded machine took longer than the default 15 s
  // heartbeat timeout, and the check at the end then found the registrations expired (NXDOMAIN, no TC).
  env = await startRegistryWithDns({ control_plane: { heartbeat_interval: 60, heartbeat_timeout: 300 } });
  for (let i = 0; i < 30; i++)
    await env.register(agentBody({ name: 'summarizer', port: 8000 + i, capabilities: ['summarize'] }));
});

afterAll(async () => {
  await env?.stop();
});

const expectsReply = (msg: Buffer) => msg.length >= 12 && (msg[2]! & 0x80) === 0;

describe('the responder over real sockets, under fuzzing', () => {
  it('answers thousands of random and mutated UDP packets with replies that parse', async () => {
    const seed = Date.now() >>> 0;
    const random = seededRandom(seed);
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const replies: Buffer[] = [];
    socket.on('message', (reply) => replies.push(reply));
    let expected = 0;
    try {
      for (let i = 0; i < 3000; i++) {
        const msg = fuzzPacket(random);
        socket.send(msg, env.dns.port, '127.0.0.1');
        if (!expectsReply(msg)) continue;
        expected++;
        const deadline = Date.now() + 2000;
        while (replies.length < expected) {
          if (Date.now() > deadline)
            throw new Error(`seed ${seed}: no reply to case ${i}: ${msg.toString('hex')}`);
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
        const reply = replies[expected - 1]!;
        const decoded = dnsPacket.decode(reply);
        expect(decoded.id, `seed ${seed} case ${i}`).toBe(msg.readUInt16BE(0));
        expect(reply.length).toBeLessThanOrEqual(1232);
      }
    } finally {
      socket.close();
    }
    expect(expected).toBeGreaterThan(2000);
    // Still answering properly afterwards.
    expect((await udpQuery(env.dns.port, '_summarize._tcp.agents.internal', 'SRV')).flag_tc).toBe(true);
    expect((await tcpQuery(env.dns.port, '_summarize._tcp.agents.internal', 'SRV')).answers).toHaveLength(30);
  });

  it('answers fuzzed messages over one TCP connection in order', async () => {
    const random = seededRandom(12_345);
    const messages = Array.from({ length: 500 }, () => fuzzPacket(random)).filter((m) => m.length > 0);
    const answered = messages.filter(expectsReply);
    const socket = connect(env.dns.port, '127.0.0.1');
    const replies: Buffer[] = [];
    let pending = Buffer.alloc(0);
    const done = new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
          replies.push(pending.subarray(2, 2 + pending.readUInt16BE(0)));
          pending = pending.subarray(2 + pending.readUInt16BE(0));
        }
        if (replies.length === answered.length) resolve();
      });
      setTimeout(() => reject(new Error(`${replies.length} of ${answered.length} TCP replies`)), 10_000);
    });
    for (const msg of messages) {
      const frame = Buffer.alloc(2 + msg.length);
      frame.writeUInt16BE(msg.length, 0);
      msg.copy(frame, 2);
      socket.write(frame);
    }
    await done;
    socket.destroy();
    replies.forEach((reply, i) => {
      expect(dnsPacket.decode(reply).id).toBe(answered[i]!.readUInt16BE(0));
    });
  });
});
