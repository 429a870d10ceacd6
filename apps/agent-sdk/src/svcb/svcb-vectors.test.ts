import { describe, expect, it } from 'vitest';
import {
  decodeSvcbRdata,
  encodeSvcbRdata,
  formatSvcbPresentation,
  parseSvcbPresentation,
  parseSvcbZoneLine,
  type SvcbRecord,
} from './index.js';

// RFC 9460 Appendix D, as recorded in shared/reference/rfc9460-svcb-vectors.md (RDATA only).
const text = (s: string) => new TextEncoder().encode(s);
const VECTORS: { name: string; lines: string[]; hex: string; record: SvcbRecord }[] = [
  {
    name: 'Figure 2: AliasMode',
    lines: ['example.com.   HTTPS   0 foo.example.com.'],
    hex: '000003666f6f076578616d706c6503636f6d00',
    record: { priority: 0, target: 'foo.example.com.', params: {} },
  },
  {
    name: 'Figure 3: TargetName is "."',
    lines: ['example.com.   SVCB   1 .'],
    hex: '000100',
    record: { priority: 1, target: '.', params: {} },
  },
  {
    name: 'Figure 4: Specifies a port',
    lines: ['example.com.   SVCB   16 foo.example.com. port=53'],
    hex: '001003666f6f076578616d706c6503636f6d00000300020035',
    record: { priority: 16, target: 'foo.example.com.', params: { port: 53 } },
  },
  {
    name: 'Figure 5: A generic key and unquoted value',
    lines: ['example.com.   SVCB   1 foo.example.com. key667=hello'],
    hex: '000103666f6f076578616d706c6503636f6d00029b000568656c6c6f',
    record: { priority: 1, target: 'foo.example.com.', params: { keys: { 667: text('hello') } } },
  },
  {
    name: 'Figure 6: A generic key and quoted value with a decimal escape',
    lines: [String.raw`example.com.   SVCB   1 foo.example.com. key667="hello\210qoo"`],
    hex: '000103666f6f076578616d706c6503636f6d00029b000968656c6c6fd2716f6f',
    record: {
      priority: 1,
      target: 'foo.example.com.',
      params: { keys: { 667: Uint8Array.of(0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xd2, 0x71, 0x6f, 0x6f) } },
    },
  },
  {
    name: 'Figure 7: Two quoted IPv6 hints',
    lines: [
      'example.com.   SVCB   1 foo.example.com. (\n                      ipv6hint="2001:db8::1,2001:db8::53:1"\n                      )',
    ],
    hex: '000103666f6f076578616d706c6503636f6d000006002020010db800000000000000000000000120010db8000000000000000000530001',
    record: {
      priority: 1,
      target: 'foo.example.com.',
      params: { ipv6hint: ['2001:db8::1', '2001:db8::53:1'] },
    },
  },
  {
    name: 'Figure 8: An IPv6 hint using the embedded IPv4 syntax',
    lines: ['example.com.   SVCB   1 example.com. ipv6hint="2001:db8:122:344::192.0.2.33"'],
    hex: '0001076578616d706c6503636f6d000006001020010db80122034400000000c0000221',
    record: { priority: 1, target: 'example.com.', params: { ipv6hint: ['2001:db8:122:344::c000:221'] } },
  },
  {
    name: 'Figure 9: SvcParamKey ordering is arbitrary in presentation format but sorted in wire format',
    lines: [
      'example.com.   SVCB   16 foo.example.org. (\n                      alpn=h2,h3-19 mandatory=ipv4hint,alpn\n                      ipv4hint=192.0.2.1\n                      )',
    ],
    hex: '001003666f6f076578616d706c65036f7267000000000400010004000100090268320568332d313900040004c0000201',
    record: {
      priority: 16,
      target: 'foo.example.org.',
      params: { mandatory: ['alpn', 'ipv4hint'], alpn: ['h2', 'h3-19'], ipv4hint: ['192.0.2.1'] },
    },
  },
  {
    name: 'Figure 10: An "alpn" value with an escaped comma and an escaped backslash in two presentation formats',
    lines: [
      String.raw`example.com.   SVCB   16 foo.example.org. alpn="f\\\\oo\\,bar,h2"`,
      String.raw`example.com.   SVCB   16 foo.example.org. alpn=f\\\092oo\092,bar,h2`,
    ],
    hex: '001003666f6f076578616d706c65036f7267000001000c08665c6f6f2c626172026832',
    record: { priority: 16, target: 'foo.example.org.', params: { alpn: [String.raw`f\oo,bar`, 'h2'] } },
  },
  {
    name: 'Extra (not from the RFC): DNS-AID-style private-use key',
    lines: [
      'planner.agents.internal. SVCB 1 planner.agents.internal. alpn=a2a port=8443 key65400="https://planner.agents.internal/.well-known/agent-card.json"',
    ],
    hex: '000107706c616e6e6572066167656e747308696e7465726e616c0000010004036132610003000220fbff78003b68747470733a2f2f706c616e6e65722e6167656e74732e696e7465726e616c2f2e77656c6c2d6b6e6f776e2f6167656e742d636172642e6a736f6e',
    record: {
      priority: 1,
      target: 'planner.agents.internal.',
      params: {
        alpn: ['a2a'],
        port: 8443,
        keys: { 65400: text('https://planner.agents.internal/.well-known/agent-card.json') },
      },
    },
  },
];

/** RFC 3597 generic form of the same RDATA, split in two-digit groups as the RFC prints it. */
const generic = (hex: string) => `\\# ${hex.length / 2} ( ${hex.match(/../g)?.join(' ') ?? ''} )`;

describe('RFC 9460 Appendix D vectors', () => {
  for (const v of VECTORS) {
    describe(v.name, () => {
      it('presentation -> wire gives the exact bytes', () => {
        for (const line of v.lines) {
          const rr = parseSvcbZoneLine(line);
          expect(rr.owner).toMatch(/\.$/);
          expect(rr.record).toEqual(v.record);
          expect(encodeSvcbRdata(rr.record).toString('hex')).toBe(v.hex);
        }
      });

      it('wire -> record -> presentation -> wire keeps the semantic value and the bytes', () => {
        const decoded = decodeSvcbRdata(Buffer.from(v.hex, 'hex'));
        expect(decoded).toEqual(v.record);
        const printed = formatSvcbPresentation(decoded);
        const reparsed = parseSvcbPresentation(printed);
        expect(reparsed).toEqual(v.record);
        expect(encodeSvcbRdata(reparsed).toString('hex')).toBe(v.hex);
      });

      it('the RFC 3597 generic form decodes to the same record', () => {
        expect(parseSvcbPresentation(generic(v.hex))).toEqual(v.record);
        expect(v.hex.length / 2).toBe(Buffer.from(v.hex, 'hex').length);
      });
    });
  }

  it('prints Figure 10 in the RFC first form and Figure 9 with sorted keys', () => {
    const f10 = decodeSvcbRdata(Buffer.from(VECTORS[8]!.hex, 'hex'));
    expect(formatSvcbPresentation(f10)).toBe(String.raw`16 foo.example.org. alpn="f\\\\oo\\,bar,h2"`);
    const f9 = decodeSvcbRdata(Buffer.from(VECTORS[7]!.hex, 'hex'));
    expect(formatSvcbPresentation(f9)).toBe(
      '16 foo.example.org. mandatory=alpn,ipv4hint alpn=h2,h3-19 ipv4hint=192.0.2.1',
    );
    const f6 = decodeSvcbRdata(Buffer.from(VECTORS[4]!.hex, 'hex'));
    expect(formatSvcbPresentation(f6)).toBe(String.raw`1 foo.example.com. key667="hello\210qoo"`);
  });
});

// RFC 9460 Appendix D.3: presentation forms a parser MUST reject.
const FAILURES: { name: string; line: string; message: RegExp }[] = [
  {
    name: 'Figure 11: multiple instances of the same SvcParamKey',
    line: 'example.com.   SVCB   1 foo.example.com. (\n                       key123=abc key123=def\n                       )',
    message: /more than once/,
  },
  {
    name: 'Figure 12: mandatory',
    line: 'example.com.   SVCB   1 foo.example.com. mandatory',
    message: /non-empty/,
  },
  { name: 'Figure 12: alpn', line: 'example.com.   SVCB   1 foo.example.com. alpn', message: /non-empty/ },
  { name: 'Figure 12: port', line: 'example.com.   SVCB   1 foo.example.com. port', message: /non-empty/ },
  {
    name: 'Figure 12: ipv4hint',
    line: 'example.com.   SVCB   1 foo.example.com. ipv4hint',
    message: /non-empty/,
  },
  {
    name: 'Figure 12: ipv6hint',
    line: 'example.com.   SVCB   1 foo.example.com. ipv6hint',
    message: /non-empty/,
  },
  {
    name: 'Figure 13: no-default-alpn value must be empty',
    line: 'example.com.   SVCB   1 foo.example.com. no-default-alpn=abc',
    message: /empty value/,
  },
  {
    name: 'Figure 14: a mandatory SvcParam is missing',
    line: 'example.com.   SVCB   1 foo.example.com. mandatory=key123',
    message: /mandatory lists key123/,
  },
  {
    name: 'Figure 15: mandatory must not list itself',
    line: 'example.com.   SVCB   1 foo.example.com. mandatory=mandatory',
    message: /must not list itself/,
  },
  {
    name: 'Figure 16: duplicate key in the mandatory list',
    line: 'example.com.   SVCB   1 foo.example.com. (\n                      mandatory=key123,key123 key123=abc\n                      )',
    message: /lists a key twice/,
  },
];

describe('RFC 9460 Appendix D.3 failure cases', () => {
  for (const f of FAILURES) {
    it(`rejects ${f.name}`, () => {
      expect(() => parseSvcbZoneLine(f.line)).toThrow(f.message);
      try {
        parseSvcbZoneLine(f.line);
      } catch (e) {
        expect(e).toMatchObject({ name: 'ReachError', code: 'INVALID_SVCB' });
      }
    });
  }
});
