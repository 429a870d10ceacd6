import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { fuzzPacket, seededRandom } from '../testing/packet-fuzz.js';
import { handleMessage } from './packet-handler.js';
import { Zone } from './zone.js';

describe('handleMessage under fuzzing', () => {
  it('survives 100,000 random and mutated packets; every reply parses and matches its query', () => {
    const source = new FakeInstanceSource();
    source.put(
      ...Array.from({ length: 40 }, (_, i) =>
        makeInstance(`worker-${String(i).padStart(4, '0')}`, {
          host: `10.2.0.${i + 1}`,
          capabilities: ['summarize'],
        }),
      ),
    );
    const zone = new Zone(source, {
      zone: 'agents.internal',
      ttlSeconds: 15,
      nameServerAddress: '127.0.0.1',
    });
    const seed = Date.now() >>> 0;
    const random = seededRandom(seed);
    const counts = { replies: 0, silent: 0, tc: 0, formerr: 0, noerror: 0 };
    let slowest = 0;
    for (let i = 0; i < 100_000; i++) {
      const msg = fuzzPacket(random);
      const transport = i % 10 === 0 ? 'tcp' : 'udp';
      const started = performance.now();
      const reply = handleMessage(zone, msg, transport);
      slowest = Math.max(slowest, performance.now() - started);
      if (reply === null) {
        counts.silent++;
        // Silence only for scraps shorter than a header, or for responses.
        expect(msg.length < 12 || (msg[2]! & 0x80) !== 0, `seed ${seed} case ${i}`).toBe(true);
        continue;
      }
      counts.replies++;
      let decoded: ReturnType<typeof dnsPacket.decode>;
      try {
        decoded = dnsPacket.decode(reply);
      } catch (error) {
        throw new Error(
          `seed ${seed} case ${i}: reply does not parse (${String(error)}): ${msg.toString('hex')}`,
        );
      }
      expect(decoded.id).toBe(msg.readUInt16BE(0));
      expect(decoded.flag_qr).toBe(true);
      if (transport === 'udp') expect(reply.length).toBeLessThanOrEqual(1232);
      if (decoded.flag_tc) counts.tc++;
      const rcode = (decoded as { rcode?: string }).rcode;
      if (rcode === 'FORMERR') counts.formerr++;
      if (rcode === 'NOERROR') counts.noerror++;
    }
    // The mix reaches every path: silence, errors, answers and truncation.
    expect(counts.silent).toBeGreaterThan(1000);
    expect(counts.formerr).toBeGreaterThan(1000);
    expect(counts.noerror).toBeGreaterThan(1000);
    expect(counts.tc).toBeGreaterThan(30);
    expect(slowest).toBeLessThan(250);
  }, 60_000);
});
