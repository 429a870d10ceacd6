import { decodeSvcbRdata } from '@agent-reach/sdk/svcb';
import dnsPacket, { type DecodedPacket, type Packet } from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { handleMessage, type Transport } from './packet-handler.js';
import { Zone } from './zone.js';

type AnyAnswer = { name: string; type: string; ttl?: number; data?: unknown; udpPayloadSize?: number };
type Reply = DecodedPacket & {
  rcode: string;
  opcode: string;
  answers: AnyAnswer[];
  authorities: AnyAnswer[];
  additionals: AnyAnswer[];
};

function zoneWith(...instances: ReturnType<typeof makeInstance>[]): Zone {
  const source = new FakeInstanceSource();
  source.put(...instances);
  return new Zone(source, { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' });
}

function query(
  name: string,
  type: string,
  opts: { edns?: number | false; id?: number; do?: boolean } = {},
): Buffer {
  const packet: Packet = {
    type: 'query',
    id: opts.id ?? 4242,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: type as 'A' }],
  };
  if (opts.edns !== false) {
    packet.additionals = [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: opts.edns ?? 1232,
        flags: opts.do ? dnsPacket.DNSSEC_OK : 0,
        options: [],
      } as never,
    ];
  }
  return dnsPacket.encode(packet);
}

function ask(zone: Zone, msg: Buffer, transport: Transport = 'udp'): Reply {
  const reply = handleMessage(zone, msg, transport);
  expect(reply).not.toBeNull();
  return dnsPacket.decode(reply!) as Reply;
}

const SVCB = 'UNKNOWN_64';

describe('handleMessage', () => {
  const zone = zoneWith(
    makeInstance('summarizer-a1', { capabilities: ['summarize'], serves: ['writing'], port: 8001 }),
    makeInstance('planner-b2', { host: 'fd00::2', capabilities: ['plan'], port: 8002 }),
  );

  it('answers SRV authoritatively with A glue, echoing the question as asked', () => {
    const reply = ask(zone, query('_WRITING._Tcp.agents.INTERNAL', 'SRV'));
    expect(reply.rcode).toBe('NOERROR');
    expect(reply.flag_aa).toBe(true);
    expect(reply.flag_rd).toBe(true);
    expect(reply.id).toBe(4242);
    expect(reply.questions).toEqual([{ name: '_WRITING._Tcp.agents.INTERNAL', type: 'SRV', class: 'IN' }]);
    expect(reply.answers).toMatchObject([
      {
        type: 'SRV',
        ttl: 15,
        data: { priority: 10, weight: 50, port: 8001, target: 'summarizer-a1.agents.internal' },
      },
    ]);
    expect(reply.additionals.filter((a) => a.type === 'A')).toMatchObject([
      { name: expect.stringMatching(/^summarizer-a1\.agents\.internal$/i), data: '10.0.0.1' },
    ]);
    expect(reply.additionals.find((a) => a.type === 'OPT')).toMatchObject({ udpPayloadSize: 1232 });
  });

  it('answers SVCB through the codec with AAAA glue for the target', () => {
    const reply = ask(zone, query('_plan._a2a._agents.agents.internal', SVCB));
    expect(reply.answers).toHaveLength(1);
    const svcb = decodeSvcbRdata(reply.answers[0]!.data as Buffer);
    expect(svcb).toMatchObject({
      priority: 10,
      target: 'planner-b2.agents.internal.',
      params: { port: 8002 },
    });
    expect(reply.additionals.filter((a) => a.type === 'AAAA')).toMatchObject([{ data: 'fd00::2' }]);
    const self = ask(zone, query('planner-b2.agents.internal', SVCB));
    expect(decodeSvcbRdata(self.answers[0]!.data as Buffer).target).toBe('.');
    expect(self.additionals.filter((a) => a.type === 'AAAA')).toHaveLength(1);
  });

  it('tells NXDOMAIN from NODATA, including empty non-terminals, with the SOA in authority', () => {
    const nx = ask(zone, query('nobody.agents.internal', 'A'));
    expect(nx.rcode).toBe('NXDOMAIN');
    expect(nx.flag_aa).toBe(true);
    expect(nx.answers).toEqual([]);
    expect(nx.authorities).toMatchObject([{ type: 'SOA', name: 'agents.internal', ttl: 15 }]);
    for (const [name, type] of [
      ['summarizer-a1.agents.internal', 'TXT'],
      ['_tcp.agents.internal', 'SRV'],
      ['_agents.agents.internal', 'A'],
      ['_a2a._agents.agents.internal', 'TXT'],
      // A DNS-AID name with an SVCB exists for every other type too: NODATA, never NXDOMAIN.
      ['_plan._a2a._agents.agents.internal', 'A'],
      ['_plan._a2a._agents.agents.internal', 'SRV'],
      ['_plan._a2a._agents.agents.internal', 'UNKNOWN_65'],
      ['summarizer-a1.agents.internal', 'UNKNOWN_65'],
    ] as const) {
      const nodata = ask(zone, query(name, type));
      expect(nodata.rcode, name).toBe('NOERROR');
      expect(nodata.answers).toEqual([]);
      expect(nodata.authorities).toMatchObject([{ type: 'SOA' }]);
    }
    expect(ask(zone, query('x._tcp.agents.internal', 'SRV')).rcode).toBe('NXDOMAIN');
    expect(ask(zone, query('bad\\032label.agents.internal', 'A')).rcode).toBe('NXDOMAIN');
  });

  it('compresses the in-zone names of SOA and NS data and glue at the question name, as knot does', () => {
    for (const name of ['nobody.agents.internal', 'NoBody.Agents.INTERNAL']) {
      const msg = query(name, 'A');
      const raw = handleMessage(zone, msg, 'udp')!;
      const nx = dnsPacket.decode(raw) as Reply;
      expect(nx.authorities).toMatchObject([
        {
          name: name.split('.').slice(1).join('.'),
          type: 'SOA',
          data: { mname: expect.stringMatching(/^ns\./i), rname: expect.stringMatching(/^hostmaster\./i) },
        },
      ]);
      expect((nx.authorities[0]!.data as { mname: string }).mname.toLowerCase()).toBe('ns.agents.internal');
      // Question + OPT, then the SOA: apex pointer (2) + 10 + MNAME ns+pointer (5) + RNAME hostmaster+pointer (13) + 20.
      expect(raw.length).toBe(msg.length + 2 + 10 + 5 + 13 + 20);
    }
    const nsMsg = query('agents.internal', 'NS');
    const ns = handleMessage(zone, nsMsg, 'udp')!;
    expect((dnsPacket.decode(ns) as Reply).answers).toMatchObject([{ data: 'ns.agents.internal' }]);
    // The NS record: pointer to the question (2) + 10 + ns+pointer (5); its glue: ns+apex pointer (5) + 10 + 4.
    expect(ns.length).toBe(nsMsg.length + 2 + 10 + 5 + 5 + 10 + 4);
    // An instance's SVCB (target "."): its address in additional is owned by a pointer to the question.
    const selfMsg = query('summarizer-a1.agents.internal', SVCB);
    const self = handleMessage(zone, selfMsg, 'udp')!;
    const decoded = dnsPacket.decode(self) as Reply;
    expect(decoded.additionals.filter((a) => a.type === 'A')).toMatchObject([
      { name: 'summarizer-a1.agents.internal' },
    ]);
    const svcbBytes = (decoded.answers[0]!.data as Buffer).length;
    expect(self.length).toBe(selfMsg.length + 2 + 10 + svcbBytes + 2 + 10 + 4);
  });

  it('refuses names outside the zone, without AA', () => {
    for (const name of ['example.com', 'internal', 'agents.internal.evil']) {
      const reply = ask(zone, query(name, 'A'));
      expect(reply.rcode).toBe('REFUSED');
      expect(reply.flag_aa).toBe(false);
      expect(reply.questions?.[0]?.name).toBe(name);
    }
  });

  it('reads the question name from its wire bytes: case, label boundaries and octets no zone label has', () => {
    // A one-letter A query with its name replaced by these labels (wire form, root byte added).
    const asking = (...labels: string[]) => {
      const msg = query('x', 'A');
      const name = Buffer.concat([
        ...labels.map((l) => Buffer.from([l.length, ...Buffer.from(l, 'latin1')])),
        Buffer.from([0]),
      ]);
      return Buffer.concat([msg.subarray(0, 12), name, msg.subarray(15)]);
    };
    expect(ask(zone, asking('summarizer-a1', 'agents', 'internal')).answers).toHaveLength(1);
    // The apex's wire octets inside one label under the root are not the apex.
    expect(ask(zone, asking('\x06agents\x08internal')).rcode).toBe('REFUSED');
    // A dot inside a label names nothing in the zone.
    expect(ask(zone, asking('summarizer.a1', 'agents', 'internal')).rcode).toBe('NXDOMAIN');
    expect(ask(zone, asking('Summarizer-A1', 'AGENTS', 'internal')).answers).toHaveLength(1);
    const svcb = ask(zone, query('_Summarize._A2A._AGENTS.Agents.Internal', SVCB));
    expect(svcb.rcode).toBe('NOERROR');
    expect(svcb.answers).toHaveLength(1);
    expect(svcb.questions?.[0]?.name).toBe('_Summarize._A2A._AGENTS.Agents.Internal');
  });

  it('answers the apex SOA, NS with glue, TXT index and ANY', () => {
    const soa = ask(zone, query('agents.internal', 'SOA'));
    expect(soa.answers).toMatchObject([
      { type: 'SOA', data: { mname: 'ns.agents.internal', serial: zone.serial } },
    ]);
    const ns = ask(zone, query('agents.internal', 'NS'));
    expect(ns.answers).toMatchObject([{ type: 'NS', data: 'ns.agents.internal' }]);
    expect(ns.additionals.filter((a) => a.type === 'A')).toMatchObject([{ data: '127.0.0.1' }]);
    const txt = ask(zone, query('_index._agents.agents.internal', 'TXT'));
    expect((txt.answers[0]!.data as Buffer[]).map(String)).toEqual([
      'agents=plan:a2a,summarize:a2a,writing:a2a',
    ]);
    const any = ask(zone, query('summarizer-a1.agents.internal', 'ANY'));
    expect(any.answers.map((a) => a.type).sort()).toEqual(['A', SVCB]);
    expect(any.additionals.filter((a) => a.type === 'A')).toEqual([]);
  });

  it('sets TC over UDP when the answer does not fit and answers in full over TCP', () => {
    const many = Array.from({ length: 60 }, (_, i) =>
      makeInstance(`worker-${String(i).padStart(4, '0')}`, {
        host: `10.1.0.${i + 1}`,
        capabilities: ['crunch'],
      }),
    );
    const big = zoneWith(...many);
    const udp = ask(big, query('_crunch._a2a._agents.agents.internal', SVCB));
    expect(udp.flag_tc).toBe(true);
    expect(udp.answers).toEqual([]);
    expect(
      handleMessage(big, query('_crunch._a2a._agents.agents.internal', SVCB), 'udp')!.length,
    ).toBeLessThanOrEqual(1232);
    const tcp = ask(big, query('_crunch._a2a._agents.agents.internal', SVCB), 'tcp');
    expect(tcp.flag_tc).toBe(false);
    expect(tcp.answers).toHaveLength(60);
    expect(tcp.additionals.filter((a) => a.type === 'A')).toHaveLength(60);
    // Without EDNS the limit is 512; a small EDNS size is raised to 512, a large one capped at 1232.
    expect(
      handleMessage(big, query('_crunch._tcp.agents.internal', 'SRV', { edns: false }), 'udp')!.length,
    ).toBeLessThanOrEqual(512);
    expect(
      handleMessage(big, query('_crunch._tcp.agents.internal', 'SRV', { edns: 100 }), 'udp')!.length,
    ).toBeLessThanOrEqual(512);
    const capped = ask(big, query('_crunch._tcp.agents.internal', 'SRV', { edns: 65_000 }));
    expect(capped.flag_tc).toBe(true);
  });

  it('over TCP, keeps the whole RRs that fit in 64 KiB and sets TC', () => {
    const many = Array.from({ length: 420 }, (_, i) =>
      makeInstance(`worker-${String(i).padStart(4, '0')}`, {
        host: `10.4.${i >> 8}.${i & 0xff}`,
        capabilities: ['crunch'],
      }),
    );
    const reply = handleMessage(
      zoneWith(...many),
      query('_crunch._a2a._agents.agents.internal', SVCB),
      'tcp',
    )!;
    expect(reply.length).toBeLessThanOrEqual(65_535);
    const decoded = dnsPacket.decode(reply) as Reply;
    expect(decoded.flag_tc).toBe(true);
    expect(decoded.answers.length).toBeGreaterThan(300);
    expect(decoded.answers.length).toBeLessThan(420);
    for (const rr of decoded.answers) expect(decodeSvcbRdata(rr.data as Buffer).params.port).toBe(9000);
  });

  it('drops glue that does not fit rather than truncating the answer', () => {
    const many = Array.from({ length: 25 }, (_, i) =>
      makeInstance(`worker-${String(i).padStart(4, '0')}`, {
        host: `10.1.0.${i + 1}`,
        capabilities: ['crunch'],
      }),
    );
    const reply = ask(zoneWith(...many), query('_crunch._tcp.agents.internal', 'SRV', { edns: 1232 }));
    expect(reply.flag_tc).toBe(false);
    expect(reply.answers).toHaveLength(25);
    expect(reply.additionals.filter((a) => a.type === 'A').length).toBeLessThan(25);
  });

  it('copies the DO bit, answers BADVERS to EDNS version 1, and refuses zone transfers', () => {
    expect(ask(zone, query('agents.internal', 'SOA', { do: true })).additionals.at(-1)).toMatchObject({
      flag_do: true,
    });
    const v1 = query('agents.internal', 'SOA');
    v1[v1.length - 5] = 1; // EDNS version octet of the trailing OPT RR (…, ext-rcode, version, flags×2, rdlen×2)
    const badvers = ask(zone, v1);
    expect(badvers.additionals.at(-1)).toMatchObject({ type: 'OPT', extendedRcode: 1 });
    expect(badvers.answers).toEqual([]);
    expect(ask(zone, query('agents.internal', 'AXFR'), 'tcp').rcode).toBe('REFUSED');
    expect(ask(zone, query('agents.internal', 'OPT')).rcode).toBe('FORMERR');
  });

  it('answers FORMERR to malformed queries, NOTIMP to other opcodes, and nothing to responses or scraps', () => {
    const good = query('agents.internal', 'SOA', { edns: false });
    const cut = good.subarray(0, good.length - 2);
    expect(ask(zone, cut).rcode).toBe('FORMERR');
    const twoQuestions = Buffer.from(good);
    twoQuestions.writeUInt16BE(2, 4);
    expect(ask(zone, twoQuestions).rcode).toBe('FORMERR');
    const trailing = Buffer.concat([good, Buffer.from([0])]);
    expect(ask(zone, trailing).rcode).toBe('FORMERR');
    const pointer = Buffer.concat([good.subarray(0, 12), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])]);
    expect(ask(zone, pointer).rcode).toBe('FORMERR');
    const notify = Buffer.from(good);
    notify.writeUInt16BE((4 << 11) | 0x0100, 2);
    const notimp = ask(zone, notify);
    expect(notimp.rcode).toBe('NOTIMP');
    expect(notimp.opcode).toBe('NOTIFY');
    const response = Buffer.from(good);
    response.writeUInt16BE(0x8000, 2);
    expect(handleMessage(zone, response, 'udp')).toBeNull();
    expect(handleMessage(zone, Buffer.from([1, 2, 3]), 'udp')).toBeNull();
  });

  it('refuses classes other than IN and ANY', () => {
    const chaos = query('agents.internal', 'TXT', { edns: false });
    chaos.writeUInt16BE(3, chaos.length - 2);
    expect(ask(zone, chaos).rcode).toBe('REFUSED');
  });

  it('answers from the live zone: a change is visible at the next query', () => {
    const source = new FakeInstanceSource();
    const live = new Zone(source, { zone: 'agents.internal', ttlSeconds: 15 });
    expect(ask(live, query('_agent._tcp.agents.internal', 'SRV')).rcode).toBe('NXDOMAIN');
    source.put(makeInstance('summarizer-a1'));
    expect(ask(live, query('_agent._tcp.agents.internal', 'SRV')).answers).toHaveLength(1);
    source.remove('summarizer-a1');
    expect(ask(live, query('summarizer-a1.agents.internal', 'A')).rcode).toBe('NXDOMAIN');
  });
});
