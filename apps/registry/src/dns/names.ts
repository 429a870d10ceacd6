import { ReachError } from '@agent-reach/sdk/protocol';

/** An instance label: a DNS host label (RFC 1123) without underscores, lower-case. */
export const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Labels the zone itself uses below the apex; an instance may not take them. */
export const RESERVED_LABELS: ReadonlySet<string> = new Set(['ns']);

/** Checks and normalises a zone name (`agents.internal`, no trailing dot, lower-case). */
export function normaliseZoneName(zone: string): string {
  const name = zone.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  const valid =
    name.length > 0 &&
    name.length <= 253 &&
    labels.every((label) => /^[a-z0-9_](?:[a-z0-9_-]{0,62})$/.test(label));
  if (!valid)
    throw new ReachError('INVALID_CONFIG', `invalid config: dns.zone: "${zone}" is not a domain name`);
  return name;
}

/** The absolute presentation name (with trailing dot) of a relative name in `apex`. */
export function absoluteName(relative: string, apex: string): string {
  return relative === '' ? `${apex}.` : `${relative}.${apex}.`;
}

/**
 * Writes `name`'s labels (length octet, then one latin1 octet per character) into `out` at 0: a
 * name of n characters takes n + 1 octets. A character loop: `Buffer.write` per label cost more.
 */
function writeLabels(name: string, out: Buffer): void {
  let lengthAt = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) {
      out[lengthAt] = i - lengthAt;
      lengthAt = i + 1;
    } else {
      out[i + 1] = c & 0xff; // latin1: the low octet of the UTF-16 unit
    }
  }
  out[lengthAt] = name.length - lengthAt;
}

/** Wire form of a sequence of ASCII labels, without the terminating root byte. */
export function labelsToWire(name: string): Buffer {
  if (name === '') return Buffer.alloc(0);
  // From the shared pool (every octet is written): the zone makes these per change and per answer.
  const out = Buffer.allocUnsafe(name.length + 1);
  writeLabels(name, out);
  return out;
}

/** Wire form of a full name (`a.b` or `a.b.`), with the terminating root byte. */
export function nameToWire(name: string): Buffer {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  // One pooled allocation: the labels, then the root octet.
  const out = Buffer.allocUnsafe(bare === '' ? 1 : bare.length + 2);
  if (bare !== '') writeLabels(bare, out);
  out[out.length - 1] = 0;
  return out;
}

/** Every proper ancestor of a relative name below the apex: `a.b.c` → `b.c`, `c`. */
export function ancestorsOf(relative: string): string[] {
  const labels = relative.split('.');
  const out: string[] = [];
  for (let i = 1; i < labels.length; i++) out.push(labels.slice(i).join('.'));
  return out;
}
