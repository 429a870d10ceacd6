import { describe, expect, it } from 'vitest';
import { srvRr, svcbRr, withSrvWeight, withSvcTarget } from './rr.js';

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
    const copy = withSvcTarget(self, record, 'sum-1');
    const fresh = svcbRr(record, 'sum-1');
    expect(copy.rdata.equals(fresh.rdata)).toBe(true);
    expect(copy.text).toBe(fresh.text);
    expect(copy.glue).toBe('sum-1');
  });

  it('takes only a record whose target is "."', () => {
    const other = svcbRr({ priority: 1, target: 'a.example.', params: { port: 1 } });
    expect(() => withSvcTarget(other, { priority: 1, target: 'b.example.', params: { port: 1 } })).toThrow(
      RangeError,
    );
  });
});
