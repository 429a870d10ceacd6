import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalName,
  decodeSvcbRdata,
  encodeSvcbRdata,
  formatSvcbPresentation,
  parseSvcbPresentation,
  type SvcbRecord,
  type SvcParamKeyName,
  type SvcParams,
  safeDecodeSvcbRdata,
  safeParseSvcbPresentation,
  svcParamKeyName,
} from './index.js';
import { ipv6FromBytes } from './svcb-ip.js';

// A label written with a test-local escaper: letters, digits and "-" bare, every other octet as \DDD.
const labelText = (bytes: Uint8Array) =>
  Array.from(bytes, (b) =>
    /[A-Za-z0-9-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`,
  ).join('');
const target = fc
  .array(fc.uint8Array({ minLength: 1, maxLength: 63 }), { maxLength: 3 })
  .map((labels) => (labels.length === 0 ? '.' : `${labels.map(labelText).join('.')}.`));

const ipv4 = fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => b.join('.'));
const ipv6 = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => ipv6FromBytes(b));
const u16 = fc.integer({ min: 0, max: 0xffff });

const baseParams = fc.record(
  {
    alpn: fc.array(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 12 }), {
      minLength: 1,
      maxLength: 4,
    }),
    noDefaultAlpn: fc.constant(true),
    port: u16,
    ipv4hint: fc.array(ipv4, { minLength: 1, maxLength: 3 }),
    ech: fc.uint8Array({ minLength: 1, maxLength: 40 }),
    ipv6hint: fc.array(ipv6, { minLength: 1, maxLength: 3 }),
    dohpath: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
    ohttp: fc.constant(true),
    tlsSupportedGroups: fc.uniqueArray(u16, { minLength: 1, maxLength: 5 }),
    keys: fc.dictionary(fc.integer({ min: 10, max: 65534 }).map(String), fc.uint8Array({ maxLength: 24 }), {
      minKeys: 1,
      maxKeys: 3,
    }),
  },
  { requiredKeys: [] },
);

/** Canonical params: no-default-alpn only with alpn, and a sorted subset of the present keys as mandatory. */
const params: fc.Arbitrary<SvcParams> = baseParams.chain((p) => {
  const base = { ...p } as SvcParams;
  if (base.alpn === undefined) delete base.noDefaultAlpn;
  const present = [
    ...Object.entries(base).flatMap(([field]) =>
      field === 'keys' ? [] : [KEY_OF_FIELD[field as keyof typeof KEY_OF_FIELD]],
    ),
    ...Object.keys(base.keys ?? {}).map(Number),
  ].sort((a, b) => a - b);
  return fc
    .subarray(present)
    .map(
      (m): SvcParams =>
        m.length === 0 ? base : { ...base, mandatory: m.map(svcParamKeyName) as SvcParamKeyName[] },
    );
});

const KEY_OF_FIELD = {
  alpn: 1,
  noDefaultAlpn: 2,
  port: 3,
  ipv4hint: 4,
  ech: 5,
  ipv6hint: 6,
  dohpath: 7,
  ohttp: 8,
  tlsSupportedGroups: 9,
} as const;

const record: fc.Arbitrary<SvcbRecord> = fc.oneof(
  fc.record({ priority: fc.integer({ min: 1, max: 0xffff }), target, params }),
  fc.record({ priority: fc.constant(0), target, params: fc.constant({}) }),
);
const canonical = (r: SvcbRecord): SvcbRecord => ({ ...r, target: canonicalName(r.target) });

describe('round trips of random valid records', () => {
  it('typed -> wire -> typed is the identity', () => {
    fc.assert(
      fc.property(record, (r) => {
        const wire = encodeSvcbRdata(r);
        const back = decodeSvcbRdata(wire);
        expect(back).toEqual(canonical(r));
        expect(encodeSvcbRdata(back)).toEqual(wire);
      }),
      { numRuns: 400 },
    );
  });

  it('typed -> presentation -> typed is the identity and keeps the wire bytes', () => {
    fc.assert(
      fc.property(record, (r) => {
        const text = formatSvcbPresentation(r);
        const back = parseSvcbPresentation(text);
        expect(back).toEqual(canonical(r));
        expect(encodeSvcbRdata(back)).toEqual(encodeSvcbRdata(r));
        expect(formatSvcbPresentation(back)).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it('presentation survives line breaks, comments and parentheses around every token', () => {
    fc.assert(
      fc.property(record, (r) => {
        const tokens = formatSvcbPresentation(r).match(/(?:[^\s"\\]|\\.|"(?:[^"\\]|\\.)*")+/g) ?? [];
        const text = tokens.join(' ( ; note\n ) ');
        expect(parseSvcbPresentation(text)).toEqual(canonical(r));
      }),
      { numRuns: 100 },
    );
  });
});

describe('hostile input never crashes', () => {
  const onlyInvalidSvcb = (res: { ok: boolean; error?: { code: string } }) =>
    res.ok || res.error?.code === 'INVALID_SVCB';

  it('random bytes decode to a record or an INVALID_SVCB error value', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const res = safeDecodeSvcbRdata(bytes);
        expect(onlyInvalidSvcb(res)).toBe(true);
        if (res.ok) expect(decodeSvcbRdata(encodeSvcbRdata(res.value))).toEqual(res.value);
      }),
      { numRuns: 2000 },
    );
  });

  it('mutated valid RDATA decodes to a record or an INVALID_SVCB error value', () => {
    const mutated = fc
      .tuple(record, fc.nat(), fc.integer({ min: 0, max: 255 }), fc.boolean())
      .map(([r, at, byte, cut]) => {
        const wire = new Uint8Array(encodeSvcbRdata(r));
        const i = at % wire.length;
        if (cut) return wire.subarray(0, i);
        wire[i] = byte;
        return wire;
      });
    fc.assert(
      fc.property(mutated, (bytes) => {
        expect(onlyInvalidSvcb(safeDecodeSvcbRdata(bytes))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('random zone-ish text parses to a record that prints and reparses the same, or to an error value', () => {
    const piece = fc.constantFrom(
      '1',
      '0',
      '.',
      ' ',
      '=',
      ',',
      '"',
      '\\',
      '(',
      ')',
      ';',
      '\n',
      'alpn',
      'port',
      'key7',
      'h2',
      '53',
      'a.b',
      '\\044',
      'mandatory',
      'ipv4hint',
      '192.0.2.1',
      'no-default-alpn',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 14 }).map((ps) => ps.join('')),
        (text) => {
          const res = safeParseSvcbPresentation(text);
          expect(onlyInvalidSvcb(res)).toBe(true);
          if (res.ok) expect(parseSvcbPresentation(formatSvcbPresentation(res.value))).toEqual(res.value);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
