import dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameToWire } from './names.js';
import {
  addressRr,
  RRTYPE,
  soaRr,
  srvRr,
  srvRrWithTargetWire,
  svcbRr,
  withSoaSerial,
  withSrvWeight,
  withSvcTarget,
} from './rr.js';

// dns-packet's A codec, which addressRr used to call: RDLENGTH then the address.
const dnsPacketA = (ip: string) =>
  (dnsPacket as unknown as { a: { encode(ip: string): Buffer } }).a.encode(ip).subarray(2);

describe('withSrvWeight', () => {
  it('gives the same RDATA and text as encoding the SRV record afresh', () => {
    const base = srvRr({
      priority: 0,
      weight: 0,
      port: 8443,
      target: 'sum-1.agents.internal.',
      glue: 'sum-1',
    });
    for (const [priority, weight] of [
      [10, 1],
      [20, 65_535],
      [65_535, 80],
    ] as const) {
      const fresh = srvRr({ priority, weight, port: 8443, target: 'sum-1.agents.internal.', glue: 'sum-1' });
      const copy = withSrvWeight(base, priority, weight);
      expect(copy.rdata.equals(fresh.rdata)).toBe(true);
      expect(copy.text).toBe(fresh.text);
      expect(copy.glue).toBe('sum-1');
    }
    // The base record is not changed by its copies.
    expect(base.rdata.readUInt32BE(0)).toBe(0);
  });
});

describe('withSoaSerial', () => {
  const fields = {
    mname: 'ns.agents.internal.',
    rname: 'hostmaster.agents.internal.',
    refresh: 3600,
    retry: 600,
    expire: 86_400,
    minimum: 30,
  };

  it('gives the same RDATA, compressed form and text as encoding the SOA with that serial afresh', () => {
    for (const apex of ['agents.internal', undefined]) {
      const base = soaRr({ ...fields, serial: 0 }, apex);
      for (const serial of [1, 7, 65_536, 2 ** 31, 2 ** 32 - 1]) {
        const fresh = soaRr({ ...fields, serial }, apex);
        const copy = withSoaSerial(base, serial);
        expect(copy.rdata.equals(fresh.rdata)).toBe(true);
        if (apex === undefined) expect(copy.compressed).toBeUndefined();
        else {
          expect(copy.compressed!.bytes.equals(fresh.compressed!.bytes)).toBe(true);
          expect(copy.compressed!.pointers).toEqual(fresh.compressed!.pointers);
        }
        expect(copy.text).toBe(fresh.text);
      }
      // The base record is not changed by its copies.
      expect(base.rdata.readUInt32BE(base.rdata.length - 20)).toBe(0);
      expect(base.text).toBe(soaRr({ ...fields, serial: 0 }, apex).text);
    }
  });

  it('agrees with dns-packet decoding the copy', () => {
    const copy = withSoaSerial(soaRr({ ...fields, serial: 3 }), 4_000_000_000);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(copy.rdata.length);
    const decoded = (
      dnsPacket as unknown as { soa: { decode(buf: Buffer): Record<string, unknown> } }
    ).soa.decode(Buffer.concat([length, copy.rdata]));
    expect(decoded).toEqual({
      ...fields,
      mname: 'ns.agents.internal',
      rname: 'hostmaster.agents.internal',
      serial: 4_000_000_000,
    });
  });
});

describe('withSvcTarget', () => {
  it('gives the same RDATA and text as encoding the record with that target afresh', () => {
    const params = {
      alpn: ['h2', 'http/1.1'],
      port: 8443,
      ipv4hint: ['10.0.0.7'],
      keys: { 65400: Buffer.from('x') },
    };
    const self = svcbRr({ priority: 1, target: '.', params }, 'sum-1');
    const record = { priority: 1, target: 'sum-1.agents.internal.', params };
    const copy = withSvcTarget(self, nameToWire(record.target), 'sum-1');
    const fresh = svcbRr(record, 'sum-1');
    expect(copy.rdata.equals(fresh.rdata)).toBe(true);
    expect(copy.text).toBe(fresh.text);
    expect(copy.glue).toBe('sum-1');
    // With a priority: the same as encoding the record with that priority and target afresh.
    for (const priority of [2, 300, 65_535]) {
      const moved = withSvcTarget(self, nameToWire(record.target), 'sum-1', priority);
      expect(moved.rdata.equals(svcbRr({ ...record, priority }, 'sum-1').rdata)).toBe(true);
    }
    // The self record is not changed by its copies.
    expect(self.rdata.equals(svcbRr({ priority: 1, target: '.', params }).rdata)).toBe(true);
  });

  it('takes only a record whose target is "."', () => {
    const other = svcbRr({ priority: 1, target: 'a.example.', params: { port: 1 } });
    expect(() => withSvcTarget(other, nameToWire('b.example.'))).toThrow(RangeError);
  });
});

describe('srvRrWithTargetWire', () => {
  it('gives the same RDATA and text as dns-packet for host names', () => {
    const label = fc.stringMatching(/^[a-z0-9_][a-z0-9_-]{0,20}$/);
    const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => `${labels.join('.')}.`);
    const u16 = fc.integer({ min: 0, max: 0xffff });
    fc.assert(
      fc.property(u16, u16, u16, host, (priority, weight, port, target) => {
        const fields = { priority, weight, port, target, glue: 'x' };
        const fresh = srvRr(fields);
        const fast = srvRrWithTargetWire(fields, nameToWire(target));
        return fast.rdata.equals(fresh.rdata) && fast.text === fresh.text && fast.glue === 'x';
      }),
      { numRuns: 2000 },
    );
  });
});

describe('addressRr', () => {
  it('encodes every IPv4 address as dns-packet does', () => {
    const ipv4 = fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => b.join('.'));
    fc.assert(
      fc.property(ipv4, (ip) => {
        const { type, rr } = addressRr(ip);
        return type === RRTYPE.A && rr.rdata.equals(dnsPacketA(ip)) && rr.text === ip;
      }),
      { numRuns: 2000 },
    );
    for (const ip of ['0.0.0.0', '255.255.255.255', '127.0.0.1', '10.200.3.99']) {
      expect(addressRr(ip).rr.rdata.equals(dnsPacketA(ip))).toBe(true);
    }
  });

  it('gives IPv6 addresses an AAAA record', () => {
    const { type, rr } = addressRr('::1');
    expect(type).toBe(RRTYPE.AAAA);
    expect([...rr.rdata]).toEqual([...new Array(15).fill(0), 1]);
  });
});
