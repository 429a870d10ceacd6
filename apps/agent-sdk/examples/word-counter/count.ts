const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
const CJK = /[\u3400-\u9fff]/;

/** The text to count: `input.text`, or what follows the colon of a task ("Count the words: …"), or the task. */
export function textOf(input: unknown): string {
  if (typeof input === 'string') return afterColon(input);
  const i = (input ?? {}) as { text?: unknown; task?: unknown };
  if (typeof i.text === 'string') return i.text;
  return typeof i.task === 'string' ? afterColon(i.task) : '';
}

function afterColon(task: string): string {
  const at = task.search(/[:：]/);
  return at === -1 ? task : task.slice(at + 1);
}

/** Words (a Chinese character counts as one, as 字数 does) and characters without spaces. */
export function countWords(text: string): { words: number; characters: number } {
  let words = 0;
  for (const s of segmenter.segment(text)) {
    if (!s.isWordLike) continue;
    words += CJK.test(s.segment) ? [...s.segment].filter((c) => CJK.test(c)).length : 1;
  }
  return { words, characters: [...text.replace(/\s/g, '')].length };
}
