import { describe, expect, it } from 'vitest';
import { charCount, estimateTokens } from './tokens.js';

describe('estimateTokens', () => {
  it('counts 1.8 CJK characters per token', () => {
    expect(estimateTokens('中'.repeat(18))).toBe(10);
    expect(estimateTokens('，。！'.repeat(6))).toBe(10);
  });

  it('counts 4 other characters per token', () => {
    expect(estimateTokens('abcd'.repeat(10))).toBe(10);
  });

  it('adds both parts for mixed text and rounds up', () => {
    expect(estimateTokens(`${'中'.repeat(9)}${'a'.repeat(10)}`)).toBe(8); // 5 + 2.5
    expect(estimateTokens('')).toBe(0);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(charCount('😀𠀀a')).toBe(3);
  });
});
