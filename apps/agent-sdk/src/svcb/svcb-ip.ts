import { invalidSvcb } from './svcb-types.js';

const IPV4 = /^(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})$/;

const notIpv4 = (text: string) => invalidSvcb(`"${text}" is not an IPv4 address`, { address: text });

/** Parses dotted-quad IPv4 text into 4 bytes; leading zeros are refused (they read as octal elsewhere). */
export function ipv4ToBytes(text: string): Uint8Array {
  const m = IPV4.exec(text);
  if (m === null) throw notIpv4(text);
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const octet = Number(m[i + 1]);
    if (octet > 255) throw notIpv4(text);
    out[i] = octet;
  }
  return out;
}

/** Formats 4 bytes at `offset` as dotted-quad text. */
export function ipv4FromBytes(bytes: Uint8Array, offset = 0): string {
  return Array.from(bytes.subarray(offset, offset + 4)).join('.');
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Hex groups of one side of `::`, with an optional trailing dotted-quad taking two groups. */
function groupsOf(part: string, allowV4: boolean): number[] | undefined {
  if (part === '') return [];
  const pieces = part.split(':');
  const groups: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (allowV4 && i === pieces.length - 1 && piece.includes('.')) {
      const v4 = ipv4ToBytes(piece);
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else if (HEX_GROUP.test(piece)) {
      groups.push(Number.parseInt(piece, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

/** Parses IPv6 text (RFC 4291 section 2.2, including embedded IPv4) into 16 bytes; zone ids are refused. */
export function ipv6ToBytes(text: string): Uint8Array {
  const fail = () => invalidSvcb(`"${text}" is not an IPv6 address`, { address: text });
  const halves = text.split('::');
  if (halves.length > 2) throw fail();
  let groups: number[] | undefined;
  try {
    const head = groupsOf(halves[0]!, halves.length === 1);
    const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
    if (head === undefined || tail === undefined) throw fail();
    const missing = 8 - head.length - tail.length;
    if (halves.length === 2 ? missing < 1 : missing !== 0) throw fail();
    groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } catch {
    throw fail();
  }
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

/** Formats 16 bytes at `offset` as RFC 5952 text (`::ffff:a.b.c.d` for IPv4-mapped addresses). */
export function ipv6FromBytes(bytes: Uint8Array, offset = 0): string {
  const b = bytes.subarray(offset, offset + 16);
  const groups = Array.from({ length: 8 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${ipv4FromBytes(b, 12)}`;
  }
  // The longest run of two or more zero groups (the first on a tie) becomes "::".
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}
