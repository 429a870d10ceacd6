import { invalidSvcb } from './svcb-types.js';

const MAX_NAME_WIRE = 255;
const MAX_LABEL = 63;

/** Reads a `\DDD` or `\X` escape at `text[i]` (the backslash); returns the octet and the next index. */
function readEscape(text: string, i: number): [number, number] {
  const digits = text.slice(i + 1, i + 4);
  if (/^[0-9]/.test(digits)) {
    if (!/^[0-9]{3}$/.test(digits) || Number(digits) > 255) {
      throw invalidSvcb(`bad decimal escape "\\${digits}" in "${text}"`);
    }
    return [Number(digits), i + 4];
  }
  const c = text.charCodeAt(i + 1);
  if (Number.isNaN(c) || c > 0x7e) throw invalidSvcb(`bad escape at the end of "${text}"`);
  return [c, i + 2];
}

/**
 * Encodes a presentation-form domain name (RFC 1035 section 5.1 escapes) as uncompressed wire labels.
 * A trailing dot is optional: without an origin every name is taken as absolute.
 */
export function nameToWire(text: string): Uint8Array {
  if (text === '.') return Uint8Array.of(0);
  if (text === '' || text === '@') throw invalidSvcb(`"${text}" is not an absolute domain name`);
  const labels: number[][] = [[]];
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) {
      const [octet, next] = readEscape(text, i);
      labels[labels.length - 1]!.push(octet);
      i = next;
    } else if (c === 0x2e) {
      labels.push([]);
      i++;
    } else if (c > 0x20 && c < 0x7f) {
      labels[labels.length - 1]!.push(c);
      i++;
    } else {
      throw invalidSvcb(`domain name "${text}" has a character that must be escaped`);
    }
  }
  if (labels.length > 1 && labels[labels.length - 1]!.length === 0) labels.pop();
  const out: number[] = [];
  for (const label of labels) {
    if (label.length === 0) throw invalidSvcb(`domain name "${text}" has an empty label`);
    if (label.length > MAX_LABEL) throw invalidSvcb(`domain name "${text}" has a label over 63 octets`);
    out.push(label.length, ...label);
  }
  out.push(0);
  if (out.length > MAX_NAME_WIRE) throw invalidSvcb(`domain name "${text}" is over 255 octets`);
  return Uint8Array.from(out);
}

// Octets that would end or change a name token if written bare.
const ESCAPED = new Set([0x2e, 0x5c, 0x22, 0x28, 0x29, 0x3b, 0x40, 0x24, 0x20]);

function labelToText(label: Uint8Array): string {
  let s = '';
  for (const b of label) {
    if (b <= 0x20 || b >= 0x7f) s += `\\${b.toString().padStart(3, '0')}`;
    else s += ESCAPED.has(b) ? `\\${String.fromCharCode(b)}` : String.fromCharCode(b);
  }
  return s;
}

/**
 * Decodes an uncompressed wire name at `offset`; compression pointers are refused (RFC 9460
 * section 2.2: TargetName is uncompressed). Returns absolute presentation text and the next offset.
 */
export function nameFromWire(bytes: Uint8Array, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let i = offset;
  for (;;) {
    if (i >= bytes.length) throw invalidSvcb('RDATA ends inside the TargetName');
    const len = bytes[i]!;
    if (len === 0) break;
    if (len > MAX_LABEL) throw invalidSvcb('TargetName uses compression or an unknown label type');
    if (i + 1 + len > bytes.length) throw invalidSvcb('RDATA ends inside a TargetName label');
    labels.push(labelToText(bytes.subarray(i + 1, i + 1 + len)));
    i += 1 + len;
    if (i + 1 - offset > MAX_NAME_WIRE) throw invalidSvcb('TargetName is over 255 octets');
  }
  return { name: labels.length === 0 ? '.' : `${labels.join('.')}.`, next: i + 1 };
}
