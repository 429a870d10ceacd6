import { describe, expect, it } from 'vitest';
import { isEtcdLeaseId, prefixEnd } from './etcd-keys.js';

describe('etcd keys', () => {
  it('computes the end of a prefix range', () => {
    expect(prefixEnd(Buffer.from('/a/')).toString()).toBe('/a0');
    expect([...prefixEnd(Buffer.from([0x61, 0xff]))]).toEqual([0x62]);
    expect([...prefixEnd(Buffer.from([]))]).toEqual([0]);
  });

  it('accepts only canonical non-zero int64 lease ids', () => {
    expect(isEtcdLeaseId('7587884912392748806')).toBe(true);
    for (const bad of ['0', '007', '-1', '9223372036854775808', 'abc', '', 12])
      expect(isEtcdLeaseId(bad)).toBe(false);
  });
});
