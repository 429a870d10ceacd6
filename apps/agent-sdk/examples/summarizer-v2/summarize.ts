import { ReachError } from '@agent-reach/sdk/protocol';
import { z } from 'zod';

/** The summarize operation's input (declared as `[text, max_length]`, at most 5,000 characters). */
export const SummarizeInput = z.object({
  text: z.string().min(1).max(5000),
  max_length: z.number().int().min(10).max(5000).default(200),
});

/** Parses an invoke input, or throws VALIDATION_FAILED naming the field. */
export function parseSummarizeInput(input: unknown): z.infer<typeof SummarizeInput> {
  const parsed = SummarizeInput.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ReachError('VALIDATION_FAILED', `input.${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

/** Splits text into sentences (Latin and CJK end marks). */
export function sentences(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?。！？])\s*/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Cuts `text` to at most `max` characters at a word boundary, marking the cut with an ellipsis. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** Extractive summary: the leading sentences that fit in `maxLength` characters. */
export function leadSentences(text: string, maxLength: number): string {
  const picked: string[] = [];
  let length = 0;
  for (const sentence of sentences(text)) {
    const extra = picked.length === 0 ? sentence.length : sentence.length + 1;
    if (length + extra > maxLength) break;
    picked.push(sentence);
    length += extra;
  }
  return picked.length > 0 ? picked.join(' ') : cutAtWord(sentences(text)[0] ?? text, maxLength);
}
