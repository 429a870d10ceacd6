import dnsPacket, { type Packet } from 'dns-packet';

/** A small seeded PRNG (mulberry32), so a failing fuzz case can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const NAMES = [
  'agents.internal',
  '_summarize._tcp.agents.internal',
  '_summarize._a2a._agents.agents.internal',
  '_agent._tcp.agents.internal',
  '_index._agents.agents.internal',
  '_tcp.agents.internal',
  'worker-0001.agents.internal',
  'NOPE.Agents.Internal',
  'example.com',
  '.',
];
const TYPES = [
  'A',
  'AAAA',
  'SRV',
  'TXT',
  'SOA',
  'NS',
  'ANY',
  'UNKNOWN_64',
  'UNKNOWN_65',
  'AXFR',
  'OPT',
  'CNAME',
];

/** Test packets for the responder: random bytes, and valid queries mutated, truncated or with odd counts. */
export function fuzzPacket(random: () => number): Buffer {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const kind = random();
  if (kind < 0.2) {
    const bytes = Buffer.alloc(Math.floor(random() * 600));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    return bytes;
  }
  const packet: Packet = {
    type: 'query',
    id: Math.floor(random() * 65_536),
    flags: random() < 0.5 ? dnsPacket.RECURSION_DESIRED : 0,
    questions: [{ name: pick(NAMES), type: pick(TYPES) as 'A' }],
  };
  if (random() < 0.6) {
    const options = random() < 0.3 ? [{ code: 10, data: Buffer.from('0123456789abcdef') }] : [];
    packet.additionals = [
      { type: 'OPT', name: '.', udpPayloadSize: Math.floor(random() * 65_536), flags: 0, options } as never,
    ];
  }
  const valid = dnsPacket.encode(packet);
  if (kind < 0.35) return valid.subarray(0, Math.floor(random() * valid.length));
  if (kind < 0.45) {
    const odd = Buffer.from(valid);
    odd.writeUInt16BE(Math.floor(random() * 65_536), 4 + 2 * Math.floor(random() * 4));
    return odd;
  }
  const mutated = Buffer.from(valid);
  const edits = 1 + Math.floor(random() * 6);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(random() * mutated.length);
    mutated[at] =
      random() < 0.5 ? Math.floor(random() * 256) : mutated[at]! ^ (1 << Math.floor(random() * 8));
  }
  // Keep most mutants queries, so they get past the first check.
  if (random() < 0.8) mutated[2] = mutated[2]! & 0x7f;
  return mutated;
}
