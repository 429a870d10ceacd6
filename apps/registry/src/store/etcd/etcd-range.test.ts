import { describe, expect, it } from 'vitest';
import { nextPageSize } from './etcd-range.js';

describe('nextPageSize', () => {
  it('starts with 500 keys, before any size is known', () => {
    expect(nextPageSize(0, 0)).toBe(500);
  });

  it('aims at 1 MiB per page from the average key-value size read so far', () => {
    // 200-byte identities: 5,242 per page, ten times fewer pages than 500 at a time.
    expect(nextPageSize(500 * 200, 500)).toBe(5242);
    // 700-byte instance records.
    expect(nextPageSize(500 * 700, 500)).toBe(1497);
  });

  it('stays between 500 and 10,000 keys', () => {
    expect(nextPageSize(500 * 10, 500)).toBe(10_000);
    expect(nextPageSize(500 * 100_000, 500)).toBe(500);
  });
});
