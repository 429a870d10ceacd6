/** The most octets one TXT character-string holds. */
export const TXT_STRING_MAX = 255;
// Keeps each TXT RR well under the 65535-octet RDATA limit.
const RR_STRINGS_MAX = 200;

/**
 * Packs capability ids into TXT character-strings of at most 255 bytes, space-separated; each
 * string but the last of an RR ends with a space, so joining an RR's strings keeps the separators.
 * Returns the strings of each TXT RR (one RR unless there are tens of thousands of capabilities).
 */
export function indexTxtStrings(capabilities: readonly string[]): string[][] {
  const strings: string[] = [];
  let current = '';
  for (const capability of capabilities) {
    const piece = current === '' ? capability : ` ${capability}`;
    // One octet stays free for the trailing separator.
    if (Buffer.byteLength(current + piece) < TXT_STRING_MAX) {
      current += piece;
      continue;
    }
    strings.push(`${current} `);
    current = capability;
  }
  strings.push(current);
  const rrs: string[][] = [];
  for (let i = 0; i < strings.length; i += RR_STRINGS_MAX) rrs.push(strings.slice(i, i + RR_STRINGS_MAX));
  for (const rr of rrs) {
    const last = rr.length - 1;
    rr[last] = rr[last]!.trimEnd();
  }
  return rrs;
}

/** The capability ids in an `_index` TXT RR's strings (the inverse of `indexTxtStrings`). */
export function parseIndexTxt(strings: readonly string[]): string[] {
  return strings
    .join(' ')
    .split(/\s+/)
    .filter((token) => token.length > 0);
}
