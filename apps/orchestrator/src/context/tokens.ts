/** CJK characters per token, roughly (seed 2.8: 1 token ≈ 1.8 Chinese characters). */
export const CJK_CHARS_PER_TOKEN = 1.8;
/** Other characters per token, roughly (English prose and code). */
export const OTHER_CHARS_PER_TOKEN = 4;

// Han, kana, hangul, CJK punctuation and full-width forms count as CJK.
const CJK = /[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/gu;

/** Estimated tokens of mixed text: CJK characters / 1.8 + other characters / 4, rounded up. */
export function estimateTokens(text: string): number {
  const total = charCount(text);
  const cjk = text.match(CJK)?.length ?? 0;
  return Math.ceil(cjk / CJK_CHARS_PER_TOKEN + (total - cjk) / OTHER_CHARS_PER_TOKEN);
}

/** Length in characters (code points), so an emoji or a rare Han character counts once. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}
