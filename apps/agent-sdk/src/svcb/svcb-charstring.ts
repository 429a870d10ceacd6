import { invalidSvcb } from './svcb-types.js';

// RFC 9460 Appendix A: non-special is VCHAR minus DQUOTE, ";", "(", ")" and "\".
const isNonSpecial = (c: number) =>
  c >= 0x21 && c <= 0x7e && c !== 0x22 && c !== 0x3b && c !== 0x28 && c !== 0x29 && c !== 0x5c;

/** Reads the escape whose backslash is at `raw[i]`; returns the octet and the index after it. */
function decodeEscape(raw: string, i: number): [number, number] {
  const next = raw.charCodeAt(i + 1);
  if (next >= 0x30 && next <= 0x39) {
    const digits = raw.slice(i + 1, i + 4);
    if (!/^[0-9]{3}$/.test(digits) || Number(digits) > 255) {
      throw invalidSvcb(`bad decimal escape "\\${digits}" (needs three digits, 000-255)`);
    }
    return [Number(digits), i + 4];
  }
  // Any other printable character or blank stands for itself.
  if (Number.isNaN(next) || (next < 0x21 && next !== 0x20 && next !== 0x09) || next > 0x7e) {
    throw invalidSvcb('a backslash must be followed by a character or three digits');
  }
  return [next, i + 2];
}

/**
 * Character-string decoding (RFC 9460 Appendix A, RFC 1035 section 5.1) of one raw SvcParamValue:
 * contiguous or wholly quoted, with `\X` and `\DDD` escapes. The empty string decodes to no octets.
 */
export function decodeCharString(raw: string): Uint8Array {
  const quoted = raw.startsWith('"');
  if (quoted && (raw.length < 2 || !raw.endsWith('"')))
    throw invalidSvcb(`a quoted value must be quoted as a whole: ${raw}`);
  const body = quoted ? raw.slice(1, -1) : raw;
  const out: number[] = [];
  for (let i = 0; i < body.length; ) {
    const c = body.charCodeAt(i);
    if (c === 0x5c) {
      const [octet, next] = decodeEscape(body, i);
      out.push(octet);
      i = next;
      continue;
    }
    // Inside quotes blanks and ( ) ; are plain text; an unescaped quote is never allowed.
    const ok =
      isNonSpecial(c) || (quoted && (c === 0x20 || c === 0x09 || c === 0x28 || c === 0x29 || c === 0x3b));
    if (!ok) {
      const shown = c < 0x20 || c > 0x7e ? `U+${c.toString(16).padStart(4, '0')}` : String.fromCharCode(c);
      throw invalidSvcb(`character ${shown} must be escaped in value ${raw}`);
    }
    out.push(c);
    i++;
  }
  return Uint8Array.from(out);
}

/** Character-string encoding: bare when every octet is non-special, else quoted with escapes. */
export function encodeCharString(bytes: Uint8Array): string {
  if (bytes.length > 0 && bytes.every(isNonSpecial)) return latin1Text(bytes);
  let s = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c || b === 0x28 || b === 0x29 || b === 0x3b)
      s += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b <= 0x7e) s += String.fromCharCode(b);
    else s += `\\${b.toString().padStart(3, '0')}`;
  }
  return `${s}"`;
}

/**
 * Splits a decoded value into list items (RFC 9460 Appendix A.1): items are non-empty and
 * `\,` / `\\` stand for a literal comma / backslash.
 */
export function splitValueList(value: Uint8Array): Uint8Array[] {
  const items: Uint8Array[] = [];
  let item: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const b = value[i]!;
    if (b === 0x5c) {
      const n = value[i + 1];
      if (n !== 0x2c && n !== 0x5c)
        throw invalidSvcb('in a value list a backslash may only escape "," or "\\"');
      item.push(n);
      i++;
    } else if (b === 0x2c) {
      items.push(Uint8Array.from(item));
      item = [];
    } else {
      item.push(b);
    }
  }
  items.push(Uint8Array.from(item));
  if (items.some((it) => it.length === 0)) throw invalidSvcb('a value list has an empty item');
  return items;
}

/** Joins list items into one value, escaping `,` and `\` inside items (RFC 9460 Appendix A.1). */
export function joinValueList(items: readonly Uint8Array[]): Uint8Array {
  const out: number[] = [];
  items.forEach((item, i) => {
    if (i > 0) out.push(0x2c);
    for (const b of item) {
      if (b === 0x2c || b === 0x5c) out.push(0x5c);
      out.push(b);
    }
  });
  return Uint8Array.from(out);
}

/** Octets of a string whose characters are all U+0000-U+00FF (one octet each). */
export function latin1Bytes(text: string, what: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xff) throw invalidSvcb(`${what} "${text}" has a character above U+00FF`);
    out[i] = c;
  }
  return out;
}

/** A string with one character per octet (the inverse of `latin1Bytes`). */
export function latin1Text(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}
