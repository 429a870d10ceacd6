import { describe, expect, it } from 'vitest';
import { indexTxtStrings, parseIndexTxt } from './index-txt.js';

describe('indexTxtStrings', () => {
  it('packs ids space-separated into strings of at most 255 bytes, joinable without losing separators', () => {
    const ids = Array.from({ length: 100 }, (_, i) => `cap_${i}_${'x'.repeat(i % 35)}`);
    const rrs = indexTxtStrings(ids);
    expect(rrs).toHaveLength(1);
    const strings = rrs[0]!;
    expect(strings.length).toBeGreaterThan(5);
    for (const s of strings) expect(Buffer.byteLength(s)).toBeLessThanOrEqual(255);
    expect(strings.join('').split(' ')).toEqual(ids);
    expect(parseIndexTxt(strings)).toEqual(ids);
  });

  it('publishes one empty string when no capability exists', () => {
    expect(indexTxtStrings([])).toEqual([['']]);
    expect(parseIndexTxt([''])).toEqual([]);
  });

  it('spreads tens of thousands of ids over several RRs', () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `c${i}`);
    const rrs = indexTxtStrings(ids);
    expect(rrs.length).toBeGreaterThan(1);
    expect(rrs.flatMap(parseIndexTxt)).toEqual(ids);
  });
});
