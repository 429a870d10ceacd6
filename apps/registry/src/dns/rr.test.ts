import { describe, expect, it } from 'vitest';
import { srvRr, withSrvWeight } from './rr.js';

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
