import dnsPacket, { type DecodedPacket, type Packet } from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { udpAsk } from '../testing/udp-ask.js';
import { AnswerCache, hashOf } from './answer-cache.js';
import { handleMessage, type Transport } from './packet-handler.js';
import { startDnsResponder } from './responder.js';
import { Zone } from './zone.js';

type Reply = DecodedPacket & {
  rcode: string;
  questions: { name: string }[];
  answers: { type: string; data?: unknown }[];
  additionals: { type: string }[];
};

function setup(count = 2): { source: FakeInstanceSource; zone: Zone } {
  const source = new FakeInstanceSource();
  for (let i = 0; i < count; i++)
    source.put(
      makeInstance(`worker-${i}`, { host: `10.0.0.${i + 1}`, port: 9000 + i, capabilities: ['crunch'] }),
    );
  return { source, zone: new Zone(source, { zone: 'agents.internal', ttlSeconds: 15 }) };
}

function query(
  name: string,
  type: string,
  opts: { id?: number; edns?: number | false; flags?: number } = {},
) {
  const packet: Packet = {
    type: 'query',
    id: opts.id ?? 7,
    flags: opts.flags ?? dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: type as 'A' }],
  };
  if (opts.edns !== false)
    packet.additionals = [
      { type: 'OPT', name: '.', udpPayloadSize: opts.edns ?? 1232, flags: 0, options: [] } as never,
    ];
  return dnsPacket.encode(packet);
}

/** Asks through the cache and checks the reply is byte for byte the uncached one. */
function ask(zone: Zone, cache: AnswerCache, msg: Buffer, transport: Transport = 'udp'): Buffer {
  const reply = handleMessage(zone, msg, transport, cache);
  expect(reply).not.toBeNull();
  expect(reply!.equals(handleMessage(zone, msg, transport)!)).toBe(true);
  return reply!;
}

const decode = (reply: Buffer) => dnsPacket.decode(reply) as Reply;
const ports = (reply: Buffer) =>
  decode(reply)
    .answers.map((a) => (a as { data: { port: number } }).data.port)
    .sort();

describe('AnswerCache', () => {
  it('hands back a stored reply with the asking ID, in a fresh buffer', () => {
    const { zone } = setup();
    const cache = new AnswerCache();
    const stored = Buffer.from([0, 1, 0x84, 0, 9, 9, 9]);
    const asked = Buffer.from([0xab, 0xcd, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    cache.set(zone.snapshot(), asked, 'udp', stored);
    const hit = cache.get(zone.snapshot(), Buffer.from([0x12, 0x34, ...asked.subarray(2)]), 'udp');
    expect([...hit!]).toEqual([0x12, 0x34, 0x84, 0, 9, 9, 9]);
    hit![2] = 0;
    expect(cache.get(zone.snapshot(), asked, 'udp')![2]).toBe(0x84);
    expect(cache.get(zone.snapshot(), asked, 'tcp')).toBeUndefined();
  });

  it('answers a repeated query from the cache with the new ID and the same bytes otherwise', () => {
    const { zone } = setup();
    const cache = new AnswerCache();
    const first = ask(zone, cache, query('_crunch._tcp.agents.internal', 'SRV', { id: 1 }));
    expect(cache.size).toBe(1);
    const second = ask(zone, cache, query('_crunch._tcp.agents.internal', 'SRV', { id: 0xbeef }));
    expect(cache.size).toBe(1);
    expect(second.readUInt16BE(0)).toBe(0xbeef);
    expect(second.subarray(2).equals(first.subarray(2))).toBe(true);
    expect(ports(second)).toEqual([9000, 9001]);
  });

  it('keeps the question name in the case each client asked', () => {
    const { zone } = setup();
    const cache = new AnswerCache();
    ask(zone, cache, query('_crunch._tcp.agents.internal', 'SRV'));
    const upper = ask(zone, cache, query('_CRUNCH._Tcp.Agents.Internal', 'SRV'));
    expect(decode(upper).questions[0]!.name).toBe('_CRUNCH._Tcp.Agents.Internal');
    expect(cache.size).toBe(2);
  });

  it('keys EDNS sizes, no EDNS, header flags and transports apart', () => {
    const { zone } = setup(30);
    const cache = new AnswerCache();
    const name = '_crunch._a2a._agents.agents.internal';
    const big = ask(zone, cache, query(name, 'UNKNOWN_64'));
    const plain = ask(zone, cache, query(name, 'UNKNOWN_64', { edns: false }));
    const noRd = ask(zone, cache, query(name, 'UNKNOWN_64', { flags: 0 }));
    const tcp = ask(zone, cache, query(name, 'UNKNOWN_64'), 'tcp');
    expect(decode(big).additionals.map((a) => a.type)).toContain('OPT');
    expect(decode(plain).additionals.map((a) => a.type)).not.toContain('OPT');
    expect(noRd[2]! & 0x01).toBe(0);
    expect(big[2]! & 0x02).toBe(0x02); // TC over UDP
    expect(tcp[2]! & 0x02).toBe(0);
    expect(decode(tcp).answers).toHaveLength(30);
    expect(cache.size).toBe(4);
  });

  it('caches NXDOMAIN, NODATA and REFUSED, but not FORMERR, NOTIMP, BADVERS or responses', () => {
    const { zone } = setup();
    const cache = new AnswerCache();
    expect(decode(ask(zone, cache, query('nope.agents.internal', 'A'))).rcode).toBe('NXDOMAIN');
    expect(decode(ask(zone, cache, query('_crunch._tcp.agents.internal', 'TXT'))).rcode).toBe('NOERROR');
    expect(decode(ask(zone, cache, query('example.com', 'A'))).rcode).toBe('REFUSED');
    expect(cache.size).toBe(3);
    const garbage = Buffer.from([1, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 99]);
    const badvers = query('_crunch._tcp.agents.internal', 'SRV');
    badvers.writeUInt8(1, badvers.length - 5); // EDNS version 1
    const notimp = query('agents.internal', 'SOA', { flags: 2 << 11 });
    const response = query('agents.internal', 'SOA');
    response[2] = response[2]! | 0x80; // QR
    const rcodes: number[] = [];
    for (const msg of [garbage, badvers, notimp]) {
      ask(zone, cache, msg);
      rcodes.push(ask(zone, cache, msg)[3]! & 0xf);
    }
    expect(rcodes).toEqual([1, 0, 4]); // FORMERR, BADVERS (extended, 16), NOTIMP
    expect(handleMessage(zone, response, 'udp', cache)).toBeNull();
    expect(cache.size).toBe(3);
  });

  it('never serves an answer from before a zone change', () => {
    const { source, zone } = setup();
    const cache = new AnswerCache();
    const msg = query('_crunch._tcp.agents.internal', 'SRV');
    expect(ports(ask(zone, cache, msg))).toEqual([9000, 9001]);
    source.put(makeInstance('worker-9', { port: 9009, capabilities: ['crunch'] }));
    expect(ports(ask(zone, cache, msg))).toEqual([9000, 9001, 9009]);
    source.remove('worker-0');
    expect(ports(ask(zone, cache, msg))).toEqual([9001, 9009]);
    expect(cache.size).toBe(1);
  });

  it('stays within its bound and answers correctly past it', () => {
    const { zone } = setup();
    const cache = new AnswerCache(3);
    for (let i = 0; i < 10; i++) {
      ask(zone, cache, query(`n${i}.agents.internal`, 'A'));
      expect(cache.size).toBeLessThanOrEqual(3);
    }
    expect(cache.size).toBeGreaterThan(0);
    expect(new AnswerCache(0).size).toBe(0);
  });

  it('keeps the replies it holds when full, and takes new ones once a change drops some', () => {
    const { source, zone } = setup();
    const cache = new AnswerCache(2);
    const first = query('worker-0.agents.internal', 'A');
    ask(zone, cache, first);
    ask(zone, cache, query('worker-1.agents.internal', 'A'));
    ask(zone, cache, query('n1.agents.internal', 'A'));
    expect(cache.size).toBe(2);
    // Still held (a full cache that started over would have lost it to the third question).
    expect(cache.get(zone.snapshot(), first, 'udp')).toBeDefined();
    source.remove('worker-1');
    ask(zone, cache, query('n1.agents.internal', 'A'));
    expect(cache.get(zone.snapshot(), query('n1.agents.internal', 'A'), 'udp')).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it('keeps apart two questions whose bytes hash alike, and drops only the one a change touched', () => {
    const { source, zone } = setup();
    // Two header-sized messages with one hash: ten pseudo-random octets after the ID, from a fixed seed.
    const message = (i: number) => {
      const msg = Buffer.alloc(12);
      let x = i + 1;
      for (let at = 2; at < 12; at++) {
        x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + at;
        msg[at] = x >>> 24;
      }
      return msg;
    };
    const seen = new Map<number, number>();
    let pair: [Buffer, Buffer] | undefined;
    for (let i = 0; pair === undefined; i++) {
      const hash = hashOf(message(i));
      const other = seen.get(hash);
      if (other !== undefined) pair = [message(other), message(i)];
      else seen.set(hash, i);
    }
    const [a, b] = pair;
    expect(a.equals(b)).toBe(false);
    const cache = new AnswerCache();
    const snapshot = zone.snapshot();
    cache.set(snapshot, a, 'udp', Buffer.from([0, 0, 0xaa]), 'worker-0');
    cache.set(snapshot, b, 'udp', Buffer.from([0, 0, 0xbb]), 'worker-1');
    cache.set(snapshot, b, 'udp', Buffer.from([0, 0, 0xcc]), 'worker-1');
    expect(cache.size).toBe(2);
    expect(cache.get(snapshot, a, 'udp')![2]).toBe(0xaa);
    expect(cache.get(snapshot, b, 'udp')![2]).toBe(0xbb);
    // worker-1's entry is the head of the chain, worker-0's behind it; drop the one behind, then the head.
    source.remove('worker-0');
    expect(cache.get(zone.snapshot(), a, 'udp')).toBeUndefined();
    expect(cache.get(zone.snapshot(), b, 'udp')![2]).toBe(0xbb);
    expect(cache.size).toBe(1);
    source.remove('worker-1');
    expect(cache.get(zone.snapshot(), b, 'udp')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe('startDnsResponder with its answer cache', () => {
  it('answers a registration made after the same question was asked', async () => {
    const { source, zone } = setup();
    const responder = await startDnsResponder({ zone, port: 0 });
    try {
      const msg = query('_crunch._tcp.agents.internal', 'SRV');
      expect(ports(await udpAsk(responder.port, msg))).toEqual([9000, 9001]);
      expect(ports(await udpAsk(responder.port, msg))).toEqual([9000, 9001]);
      source.put(makeInstance('worker-7', { port: 9007, capabilities: ['crunch'] }));
      expect(ports(await udpAsk(responder.port, msg))).toEqual([9000, 9001, 9007]);
    } finally {
      await responder.stop();
    }
  });
});
