/** Words that say nothing about which capability a task needs (English and Chinese). */
const STOP_WORDS: ReadonlySet<string> = new Set([
  ...'a an the of to in on for and or is are be this that these those it its with from by as at me my'
    .split(' ')
    .concat('please can could you your i we our how what which do does some any into about than'.split(' ')),
  ...(
    '的 了 是 在 这 那 个 一 和 与 或 请 我 你 他 她 它 们 帮 把 从 成 给 有 吗 呢 吧 啊 下 一下 这个 那个 一个 一些 ' +
    '什么 怎么 怎么样 多少 哪 哪个 哪些 如何 是否 能 可以 需要 帮我 请问 一份 一条 一篇 一段 这段 这篇'
  ).split(' '),
]);

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });

/** A light English stem: plural and -ing/-ed endings, so "counts", "counting" and "count" meet. */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/**
 * The terms of a text for ranking: words from `Intl.Segmenter` (which segments Chinese into words),
 * lower-cased and stemmed; a Chinese word longer than two characters also gives its character pairs,
 * so 这篇文章 meets 文章. Ids such as `word_count` split at underscores.
 */
export function skillTerms(text: string): string[] {
  const out: string[] = [];
  for (const part of segmenter.segment(text.replace(/_/g, ' '))) {
    if (!part.isWordLike) continue;
    const word = part.segment.toLowerCase();
    if (!CJK.test(word)) {
      const s = stem(word);
      if (!STOP_WORDS.has(word) && !STOP_WORDS.has(s)) out.push(s);
      continue;
    }
    if (!STOP_WORDS.has(word)) out.push(word);
    const chars = [...word];
    if (chars.length > 2) {
      for (let i = 0; i + 1 < chars.length; i++) {
        const pair = chars[i]! + chars[i + 1]!;
        if (!STOP_WORDS.has(pair)) out.push(pair);
      }
    }
  }
  return out;
}
