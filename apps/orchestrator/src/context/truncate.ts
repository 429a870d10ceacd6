import { charCount, estimateTokens } from './tokens.js';

/** Share of the kept characters taken from the head; the rest comes from the tail (seed 2.8). */
export const HEAD_SHARE = 0.65;

/** The marker that stands where text was cut out. */
export function truncationMarker(cutChars: number): string {
  return `\n…[已截断 ${cutChars} 字 / ${cutChars} chars cut]…\n`;
}

/** Cuts `text` to about `targetChars` characters: head 65 %, a marker, then the tail. */
export function truncateMiddle(text: string, targetChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= targetChars) return text;
  const target = Math.max(0, Math.floor(targetChars));
  // The marker's length depends on the count it shows; two passes settle it.
  let keep = Math.max(0, target - truncationMarker(chars.length).length);
  keep = Math.max(0, target - truncationMarker(chars.length - keep).length);
  const head = Math.round(keep * HEAD_SHARE);
  const tail = keep - head;
  return (
    chars.slice(0, head).join('') +
    truncationMarker(chars.length - keep) +
    chars.slice(chars.length - tail).join('')
  );
}

/** The longest middle-cut of `text` whose estimated tokens fit `capTokens` (the text itself if it fits). */
export function truncateToTokens(text: string, capTokens: number): string {
  if (estimateTokens(text) <= capTokens) return text;
  let lo = 0;
  let hi = charCount(text) - 1;
  let best = truncateMiddle(text, 0);
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const candidate = truncateMiddle(text, mid);
    if (estimateTokens(candidate) <= capTokens) {
      best = candidate;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
