import { invalidSvcb } from './svcb-types.js';

const isBlank = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/**
 * Splits one zone-file record into raw tokens (RFC 1035 section 5.1): blanks separate, `( )` group
 * lines, `;` starts a comment, quotes and backslash escapes are kept verbatim inside their token.
 * A line break outside parentheses ends the record; any later token is an error.
 */
export function tokenizeRecord(text: string): string[] {
  const tokens: string[] = [];
  let token = '';
  let inToken = false;
  let quoted = false;
  let depth = 0;
  let ended = false;
  const flush = () => {
    if (!inToken) return;
    if (ended) throw invalidSvcb(`unexpected text after the end of the record: ${token}`);
    tokens.push(token);
    token = '';
    inToken = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      if (i + 1 >= text.length) throw invalidSvcb('the record ends with a lone backslash');
      token += c + text[i + 1];
      inToken = true;
      i++;
    } else if (quoted) {
      token += c;
      if (c === '"') quoted = false;
    } else if (c === '"') {
      token += c;
      inToken = true;
      quoted = true;
    } else if (isBlank(c) || c === '(' || c === ')' || c === ';') {
      flush();
      if (c === '(') depth++;
      if (c === ')' && --depth < 0) throw invalidSvcb('unbalanced ")" in the record');
      if (c === ';') while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      if (c === '\n' && depth === 0 && tokens.length > 0) ended = true;
    } else {
      token += c;
      inToken = true;
    }
  }
  if (quoted) throw invalidSvcb('unterminated quoted string in the record');
  flush();
  if (depth !== 0) throw invalidSvcb('unbalanced "(" in the record');
  return tokens;
}
