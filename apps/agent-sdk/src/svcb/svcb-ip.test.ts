import { isIPv4, isIPv6 } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipv4FromBytes, ipv4ToBytes, ipv6FromBytes, ipv6ToBytes } from './svcb-ip.js';

const full = (b: Uint8Array) =>
  Array.from({ length: 8 }, (_, i) => ((b[2 * i]! << 8) | b[2 * i + 1]!).toString(16).padStart(4, '0')).join(
    ':',
  );
// The WHATWG URL parser is an independent RFC 5952 compressor (it prints mapped addresses in hex).
const whatwg = (text: string) => new URL(`http://[${text}]/`).hostname.slice(1, -1);
const isMapped = (b: Uint8Array) =>
  b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;

describe('IPv6 text', () => {
  it('formats as the URL parser compresses, and parses back to the same bytes', () => {
    const addr = fc.oneof(
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
      fc
        .array(fc.constantFrom(0, 0, 0, 1, 0xff), { minLength: 16, maxLength: 16 })
        .map((a) => Uint8Array.from(a)),
    );
    fc.assert(
      fc.property(addr, (b) => {
        const text = ipv6FromBytes(b);
        expect(ipv6ToBytes(text)).toEqual(b);
        expect(ipv6ToBytes(full(b))).toEqual(b);
        if (!isMapped(b)) expect(text).toBe(whatwg(full(b)));
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts exactly what node:net accepts', () => {
    const text = fc.array(fc.constantFrom('0', '1', 'f', 'ffff', '12345', ':', '::', '.', '192.0.2.1', 'g'), {
      maxLength: 10,
    });
    fc.assert(
      fc.property(
        text.map((p) => p.join('')),
        (t) => {
          let ours = true;
          try {
            ipv6ToBytes(t);
          } catch {
            ours = false;
          }
          expect(ours).toBe(isIPv6(t));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['2001:db8:122:344::192.0.2.33', '2001:db8:122:344::c000:221'],
    ['::ffff:192.0.2.1', '::ffff:192.0.2.1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::', '::'],
  ])('normalises %s to %s', (input, output) => {
    expect(ipv6FromBytes(ipv6ToBytes(input))).toBe(output);
  });

  it.each([
    '',
    ':',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    '::1.2.3',
    'fe80::1%eth0',
    '::01.2.3.4',
  ])('rejects %j', (input) => {
    expect(() => ipv6ToBytes(input)).toThrow(/not an IPv6 address/);
  });
});

describe('IPv4 text', () => {
  it('round-trips every address and agrees with node:net on random text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 4, maxLength: 4 }), (b) => {
        expect(ipv4ToBytes(ipv4FromBytes(b))).toEqual(b);
      }),
    );
    const text = fc.array(fc.constantFrom('0', '1', '25', '255', '256', '01', '.', 'x'), { maxLength: 8 });
    fc.assert(
      fc.property(
        text.map((p) => p.join('')),
        (t) => {
          let ours = true;
          try {
            ipv4ToBytes(t);
          } catch {
            ours = false;
          }
          expect(ours).toBe(isIPv4(t));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
