import { describe, expect, it } from 'vitest';
import { estimateTokens } from './tokens.js';
import { HEAD_SHARE, truncateMiddle, truncateToTokens, truncationMarker } from './truncate.js';

const text = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');

describe('truncateMiddle', () => {
  it('keeps 65 % head, a marker, and the tail, at the target length', () => {
    const out = truncateMiddle(text, 300);
    expect(Array.from(out)).toHaveLength(300);
    const [head, tail] = out.split(/\n…\[已截断 \d+ 字 \/ \d+ chars cut\]…\n/);
    const kept = head!.length + tail!.length;
    expect(head!.length).toBe(Math.round(kept * HEAD_SHARE));
    expect(text.startsWith(head!)).toBe(true);
    expect(text.endsWith(tail!)).toBe(true);
    expect(out).toContain(truncationMarker(1000 - kept));
  });

  it('leaves short text alone and never splits a surrogate pair', () => {
    expect(truncateMiddle('short', 300)).toBe('short');
    const emoji = '😀'.repeat(200);
    expect(truncateMiddle(emoji, 100)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});

describe('truncateToTokens', () => {
  it('cuts to the cap and keeps as much as fits', () => {
    const out = truncateToTokens(text, 320);
    expect(estimateTokens(out)).toBeLessThanOrEqual(320);
    expect(estimateTokens(out)).toBeGreaterThan(310);
  });

  it('returns text that fits unchanged', () => {
    expect(truncateToTokens('中'.repeat(500), 320)).toBe('中'.repeat(500));
  });
});
