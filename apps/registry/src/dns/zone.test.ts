import { indexedCapabilities } from '@agent-reach/sdk/protocol';
import { decodeSvcbRdata, readAgentCard } from '@agent-reach/sdk/svcb';
import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { RRTYPE } from './rr.js';
import { Zone } from './zone.js';
import type { ZoneSnapshot } from './zone-snapshot.js';

const options = { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' };

function rdatas(snapshot: ZoneSnapshot, name: string, type: number): Buffer[] {
  return (
    snapshot.nodes
      .get(name)
      ?.rrsets.get(type)
      ?.rrs.map((rr) => rr.rdata) ?? []
  );
}

function srvs(snapshot: ZoneSnapshot, name: string) {
  return rdatas(snapshot, name, RRTYPE.SRV).map((rdata) => {
    const withLength = Buffer.concat([Buffer.from([rdata.length >> 8, rdata.length & 0xff]), rdata]);
    return (dnsPacket as unknown as { srv: { decode(b: Buffer): unknown } }).srv.decode(withLength);
  });
}

/** The character-strings of every TXT RR at `name`. */
function txtStrings(snapshot: ZoneSnapshot, name: string): string[][] {
  return (snapshot.nodes.get(name)?.rrsets.get(RRTYPE.TXT)?.rrs ?? []).map((rr) => {
    const strings: string[] = [];
    for (let at = 0; at < rr.rdata.length; at += rr.rdata[at]! + 1) {
      strings.push(rr.rdata.subarray(at + 1, at + 1 + rr.rdata[at]!).toString());
    }
    return strings;
  });
}

function txt(snapshot: ZoneSnapshot): string[] {
  return indexedCapabilities(txtStrings(snapshot, '_index._agents').flat());
}

describe('Zone', () => {
  it('lays out every name of ARCHITECTURE section 3', () => {
    const source = new FakeInstanceSource();
    source.put(
      makeInstance('summarizer-a1', {
        capabilities: ['summarize'],
        serves: ['writing'],
        port: 8001,
        priority: 80,
      }),
      makeInstance('planner-b2', {
        host: 'fd00::7',
        capabilities: ['plan'],
        serves: ['planning'],
        port: 8002,
      }),
    );
    const snap = new Zone(source, options).snapshot();
    expect([...snap.nodes.keys()].sort()).toEqual([
      '',
      '_agent._tcp',
      '_index._agents',
      '_plan._a2a._agents',
      '_plan._tcp',
      '_planning._a2a._agents',
      '_planning._tcp',
      '_summarize._a2a._agents',
      '_summarize._tcp',
      '_writing._a2a._agents',
      '_writing._tcp',
      'ns',
      'planner-b2',
      'summarizer-a1',
    ]);
    expect([...snap.emptyNonTerminals].sort()).toEqual(['_a2a._agents', '_agents', '_tcp']);
    expect(rdatas(snap, 'summarizer-a1', RRTYPE.A)).toEqual([Buffer.from([10, 0, 0, 1])]);
    expect(rdatas(snap, 'planner-b2', RRTYPE.AAAA)[0]!.toString('hex')).toBe(
      'fd000000000000000000000000000007',
    );
    expect(srvs(snap, '_writing._tcp')).toEqual([
      { priority: 10, weight: 80, port: 8001, target: 'summarizer-a1.agents.internal' },
    ]);
    expect(srvs(snap, '_agent._tcp').map((s) => (s as { target: string }).target)).toEqual([
      'planner-b2.agents.internal',
      'summarizer-a1.agents.internal',
    ]);
    expect(txt(snap)).toEqual(['plan', 'planning', 'summarize', 'writing']);
    expect(txtStrings(snap, '_index._agents')).toEqual([
      ['agents=plan:a2a,planning:a2a,summarize:a2a,writing:a2a'],
    ]);
    // Each DNS-AID name also has its capabilities= TXT, so it exists for every type (NODATA, not NXDOMAIN).
    for (const capability of ['plan', 'planning', 'summarize', 'writing'])
      expect(txtStrings(snap, `_${capability}._a2a._agents`)[0]![0]).toBe(`capabilities=${capability}`);
    expect(snap.nodes.get('')!.rrsets.has(RRTYPE.SOA)).toBe(true);
    expect(snap.nodes.get('')!.rrsets.has(RRTYPE.NS)).toBe(true);
    expect(snap.ttl).toBe(15);
  });

  it('publishes DNS-AID SVCB at the flat name and one ServiceMode RR per instance in the capability index', () => {
    const source = new FakeInstanceSource();
    source.put(
      makeInstance('summarizer-a1', { capabilities: ['summarize'], port: 8001 }),
      makeInstance('summarizer-c3', { host: '10.0.0.3', capabilities: ['summarize'], port: 8003 }),
    );
    const snap = new Zone(source, options).snapshot();
    const self = decodeSvcbRdata(rdatas(snap, 'summarizer-a1', RRTYPE.SVCB)[0]!);
    expect(self).toMatchObject({ priority: 1, target: '.' });
    expect(self.params).toMatchObject({
      mandatory: ['alpn', 'port'],
      alpn: ['http/1.1'],
      port: 8001,
      ipv4hint: ['10.0.0.1'],
    });
    const card = readAgentCard(self.params);
    expect(card).toEqual({
      ok: true,
      value: {
        url: 'http://10.0.0.1:8001/.well-known/agent-card.json',
        sha256: source.get('summarizer-a1')!.card_sha256,
        bap: ['a2a/1'],
      },
    });
    const index = rdatas(snap, '_summarize._a2a._agents', RRTYPE.SVCB).map(decodeSvcbRdata);
    expect(index.map((r) => [r.priority, r.target, r.params.port])).toEqual([
      [10, 'summarizer-a1.agents.internal.', 8001],
      [10, 'summarizer-c3.agents.internal.', 8003],
    ]);
    expect(index[1]!.params.keys).toEqual(
      decodeSvcbRdata(rdatas(snap, 'summarizer-c3', RRTYPE.SVCB)[0]!).params.keys,
    );
  });

  it('follows the source: additions, removals and updates, with a rising serial', () => {
    const source = new FakeInstanceSource();
    let now = 1_000_000_000_000;
    const zone = new Zone(source, { ...options, wallNow: () => now });
    const first = zone.snapshot();
    expect(first.nodes.has('_agent._tcp')).toBe(false);
    source.put(makeInstance('summarizer-a1'));
    const second = zone.snapshot();
    expect(second.serial).toBeGreaterThan(first.serial);
    expect(srvs(second, '_agent._tcp')).toHaveLength(1);
    source.put(makeInstance('summarizer-a1', { port: 9999 }));
    expect((srvs(zone.snapshot(), '_agent._tcp')[0] as { port: number }).port).toBe(9999);
    source.remove('summarizer-a1');
    const last = zone.snapshot();
    expect(last.nodes.has('summarizer-a1')).toBe(false);
    expect(last.nodes.has('_summarize._tcp')).toBe(false);
    expect(txt(last)).toEqual([]);
    expect(last.serial).toBeGreaterThan(second.serial);
    now += 3_600_000;
    source.put(makeInstance('summarizer-a1'));
    expect(zone.serial).toBe(Math.floor(now / 1000));
  });

  it('subscribes instead of polling and stops on close', () => {
    const source = new FakeInstanceSource();
    const zone = new Zone(source, options);
    expect(source.listenerCount()).toBe(1);
    const serials: number[] = [];
    zone.onChange((serial) => serials.push(serial));
    source.put(makeInstance('summarizer-a1'));
    expect(serials).toEqual([zone.serial]);
    zone.close();
    expect(source.listenerCount()).toBe(0);
  });

  it('reuses one snapshot until something changes', () => {
    const source = new FakeInstanceSource();
    const zone = new Zone(source, options);
    expect(zone.snapshot()).toBe(zone.snapshot());
  });

  it('takes priorities and weights from a pluggable weight function and republishes on demand', () => {
    const source = new FakeInstanceSource();
    source.put(makeInstance('summarizer-a1', { capabilities: ['summarize'], priority: 0 }));
    const zone = new Zone(source, options);
    expect(srvs(zone.snapshot(), '_summarize._tcp')).toMatchObject([{ priority: 10, weight: 1 }]);
    let weight = 40;
    zone.setWeightOf((_record, capability) => ({ priority: capability ? 3 : 7, weight }));
    expect(srvs(zone.snapshot(), '_summarize._tcp')).toMatchObject([{ priority: 3, weight: 40 }]);
    expect(srvs(zone.snapshot(), '_agent._tcp')).toMatchObject([{ priority: 7, weight: 40 }]);
    expect(
      decodeSvcbRdata(rdatas(zone.snapshot(), '_summarize._a2a._agents', RRTYPE.SVCB)[0]!).priority,
    ).toBe(3);
    weight = 55;
    const before = zone.serial;
    zone.weightsChanged();
    expect(zone.serial).toBeGreaterThan(before);
    expect(srvs(zone.snapshot(), '_summarize._tcp')).toMatchObject([{ weight: 55 }]);
    // SvcPriority 0 would turn the record into AliasMode: it is kept at 1 or more.
    zone.setWeightOf(() => ({ priority: 0, weight: 1e9 }));
    expect(
      decodeSvcbRdata(rdatas(zone.snapshot(), '_summarize._a2a._agents', RRTYPE.SVCB)[0]!).priority,
    ).toBe(1);
    expect(srvs(zone.snapshot(), '_summarize._tcp')).toMatchObject([{ priority: 0, weight: 65_535 }]);
  });

  it('falls back to the default weight for a record the weight function fails on', () => {
    const source = new FakeInstanceSource();
    source.put(
      makeInstance('summarizer-a1', { priority: 70 }),
      makeInstance('summarizer-b1', { priority: 70 }),
    );
    const zone = new Zone(source, options);
    zone.setWeightOf((record) => {
      if (record.instance_id === 'summarizer-a1') throw new Error('no weight yet');
      return { priority: 5, weight: 9 };
    });
    expect(srvs(zone.snapshot(), '_summarize._tcp')).toMatchObject([
      { priority: 10, weight: 70, target: 'summarizer-a1.agents.internal' },
      { priority: 5, weight: 9, target: 'summarizer-b1.agents.internal' },
    ]);
  });

  it('leaves out instances it cannot publish and says why', () => {
    const source = new FakeInstanceSource();
    const skipped: string[] = [];
    const bad = { ...makeInstance('summarizer-a1'), instance_id: 'Bad_Label' };
    const badCard = { ...makeInstance('summarizer-b1'), card_url: 'ftp://nope' };
    source.put(bad, badCard, makeInstance('summarizer-c1'));
    const zone = new Zone(source, { ...options, onSkip: (id, error) => skipped.push(`${id}:${error.code}`) });
    expect(skipped).toEqual(['Bad_Label:INVALID_DECLARATION', 'summarizer-b1:INVALID_SVCB']);
    expect(srvs(zone.snapshot(), '_agent._tcp')).toHaveLength(1);
  });

  it('keeps the generic `_agent._tcp` apart from a capability named agent', () => {
    const source = new FakeInstanceSource();
    source.put(
      makeInstance('summarizer-a1', { capabilities: ['agent'] }),
      makeInstance('other-b1', { capabilities: ['x'] }),
    );
    const snap = new Zone(source, options).snapshot();
    expect(srvs(snap, '_agent._tcp')).toHaveLength(2);
    expect(rdatas(snap, '_agent._a2a._agents', RRTYPE.SVCB)).toHaveLength(1);
  });

  it('splits a long capability index into TXT strings of at most 255 bytes', () => {
    const source = new FakeInstanceSource();
    const capabilities = Array.from(
      { length: 30 },
      (_, i) => `capability_number_${String(i).padStart(3, '0')}`,
    );
    source.put(makeInstance('many-a1', { capabilities }));
    const snap = new Zone(source, options).snapshot();
    expect(txt(snap)).toEqual(capabilities);
    const [strings, ...more] = txtStrings(snap, '_index._agents');
    expect(more).toEqual([]);
    expect(strings!.length).toBeGreaterThan(1);
    // Each string is a whole DNS-AID list: a reader that takes one string still gets whole entries.
    for (const s of strings!) {
      expect(Buffer.byteLength(s)).toBeLessThanOrEqual(255);
      expect(s).toMatch(/^agents=capability_number_\d{3}:a2a(,capability_number_\d{3}:a2a)*$/);
    }
  });

  it('rejects a bad zone name with a config error', () => {
    expect(() => new Zone(new FakeInstanceSource(), { ...options, zone: 'bad zone' })).toThrow(/dns.zone/);
  });
});
