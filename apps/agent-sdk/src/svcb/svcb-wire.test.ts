import { describe, expect, it } from 'vitest';
import {
  decodeSvcbRdata,
  encodeSvcbRdata,
  type SvcbRecord,
  type SvcParams,
  safeDecodeSvcbRdata,
} from './index.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
// priority 1, target "." followed by the given params
const svc = (params: string) => hex(`0001 00 ${params}`);

function expectInvalid(fn: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toMatchObject({ name: 'ReachError', code: 'INVALID_SVCB' });
  expect((thrown as Error).message).toMatch(message);
}

describe('decodeSvcbRdata framing (RFC 9460 section 2.2)', () => {
  it.each([
    ['empty', '', /too short/],
    ['priority only', '0001', /too short/],
    ['name runs off the end', '0001 03666f', /inside a TargetName label/],
    ['name without root label', '0001 03666f6f', /ends inside the TargetName/],
    ['compression pointer', '0001 c00c', /compression/],
    ['extended label type', '0001 4100', /compression or an unknown label type/],
    ['param header cut', '0001 00 0003', /inside a SvcParam header/],
    ['param value cut', '0001 00 0003 0002 00', /inside the value of key3/],
    ['keys out of order', '0001 00 0003 0002 0035 0001 0003 026832', /strictly increasing/],
    ['duplicate key', '0001 00 0003 0002 0035 0003 0002 0036', /strictly increasing/],
    ['reserved key 65535', '0001 00 ffff 0000', /65535 is reserved/],
  ])('rejects %s', (_, rdata, message) => {
    expectInvalid(() => decodeSvcbRdata(hex(rdata)), message);
  });

  it('rejects a TargetName over 255 octets', () => {
    const label = `3f${'61'.repeat(63)}`;
    expectInvalid(() => decodeSvcbRdata(hex(`0001 ${label.repeat(4)} 00`)), /over 255 octets/);
  });

  it('ignores AliasMode params, as section 2.4.2 requires', () => {
    expect(decodeSvcbRdata(hex('0000 00 0003 0002 0035'))).toEqual({ priority: 0, target: '.', params: {} });
    expect(decodeSvcbRdata(hex('0000 00 ffff'))).toEqual({ priority: 0, target: '.', params: {} });
  });

  it('escapes special octets in the decoded TargetName', () => {
    const rec = decodeSvcbRdata(hex('0001 03 612e62 02 2001 00'));
    expect(rec.target).toBe('a\\.b.\\032\\001.');
    expect(encodeSvcbRdata(rec).toString('hex')).toBe('000103612e6202200100');
  });

  it('copies values out of the input buffer', () => {
    const buf = svc('029b 0002 6869');
    const rec = decodeSvcbRdata(buf);
    buf[buf.length - 1] = 0;
    expect(rec.params.keys?.[667]).toEqual(Uint8Array.of(0x68, 0x69));
  });

  it('returns an error value from safeDecodeSvcbRdata', () => {
    const res = safeDecodeSvcbRdata(hex('0001'));
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.code).toBe('INVALID_SVCB');
    expect(safeDecodeSvcbRdata(hex('000100'))).toEqual({
      ok: true,
      value: { priority: 1, target: '.', params: {} },
    });
    expect(safeDecodeSvcbRdata('0001' as unknown as Uint8Array).ok).toBe(false);
  });
});

describe('decodeSvcbRdata per-key formats', () => {
  it.each([
    ['mandatory empty', '0000 0000', /non-empty list/],
    ['mandatory odd length', '0000 0003 000100 0001 0003 026832', /non-empty list/],
    ['mandatory lists itself', '0000 0004 0000 0001 0001 0003 026832', /must not list itself/],
    [
      'mandatory not increasing',
      '0000 0004 0003 0001 0001 0003 026832 0003 0002 0035',
      /strictly increasing/,
    ],
    ['mandatory lists an absent key', '0000 0002 0003', /mandatory lists port/],
    ['alpn empty', '0001 0000', /at least one id/],
    ['alpn empty id', '0001 0001 00', /empty id/],
    ['alpn id overruns', '0001 0003 036832', /exactly fill/],
    ['no-default-alpn with a value', '0001 0003 026832 0002 0001 00', /empty value/],
    ['no-default-alpn without alpn', '0002 0000', /requires alpn/],
    ['port of 1 octet', '0003 0001 35', /2 octets/],
    ['port of 3 octets', '0003 0003 000035', /2 octets/],
    ['ipv4hint empty', '0004 0000', /multiple of 4/],
    ['ipv4hint of 5 octets', '0004 0005 c000020101', /multiple of 4/],
    ['ech empty', '0005 0000', /ech must not be empty/],
    ['ipv6hint of 15 octets', `0006 000f ${'00'.repeat(15)}`, /multiple of 16/],
    ['ipv6hint empty', '0006 0000', /multiple of 16/],
    ['dohpath not UTF-8', '0007 0002 c328', /not valid UTF-8/],
    ['ohttp with a value', '0008 0001 00', /empty value/],
    ['tls-supported-groups odd', '0009 0003 001d00', /multiple of 2/],
    ['tls-supported-groups duplicate', '0009 0004 001d 001d', /twice/],
  ])('rejects %s', (_, params, message) => {
    expectInvalid(() => decodeSvcbRdata(svc(params)), message);
  });

  it('decodes every typed key', () => {
    const rec = decodeSvcbRdata(
      svc(`0000 0002 0003
           0001 0006 0268330261 32
           0002 0000
           0003 0002 01bb
           0004 0008 c0000201 c0000202
           0005 0004 0002fe0d
           0006 0010 00000000000000000000ffffc0000221
           0007 0010 2f646e732d71756572797b3f646e737d
           0008 0000
           0009 0004 11ec 001d
           ff78 0000`),
    );
    expect(rec.params).toEqual({
      mandatory: ['port'],
      alpn: ['h3', 'a2'],
      noDefaultAlpn: true,
      port: 443,
      ipv4hint: ['192.0.2.1', '192.0.2.2'],
      ech: Uint8Array.of(0, 2, 0xfe, 0x0d),
      ipv6hint: ['::ffff:192.0.2.33'],
      dohpath: '/dns-query{?dns}',
      ohttp: true,
      tlsSupportedGroups: [4588, 29],
      keys: { 65400: new Uint8Array(0) },
    } satisfies SvcParams);
  });
});

describe('encodeSvcbRdata validation', () => {
  const rec = (params: SvcParams, priority = 1, target = 'svc.example.'): SvcbRecord => ({
    priority,
    target,
    params,
  });

  it('returns a Buffer that dns-packet can copy', () => {
    expect(Buffer.isBuffer(encodeSvcbRdata(rec({ port: 53 })))).toBe(true);
  });

  it('accepts a target without the trailing dot', () => {
    expect(encodeSvcbRdata(rec({}, 1, 'svc.example'))).toEqual(encodeSvcbRdata(rec({}, 1, 'svc.example.')));
  });

  it.each([
    ['priority -1', rec({}, -1), /SvcPriority/],
    ['priority 65536', rec({}, 65536), /SvcPriority/],
    ['priority 1.5', rec({}, 1.5), /SvcPriority/],
    ['empty target', rec({}, 1, ''), /not an absolute domain name/],
    ['empty label', rec({}, 1, 'a..b'), /empty label/],
    ['long label', rec({}, 1, `${'a'.repeat(64)}.example`), /over 63/],
    ['AliasMode with params', rec({ port: 53 }, 0), /AliasMode/],
    [
      'unknown field',
      { priority: 1, target: '.', params: { ipv4Hint: ['192.0.2.1'] } as SvcParams },
      /unknown SvcParams field/,
    ],
    ['typed key under keys', rec({ keys: { 3: Uint8Array.of(0, 53) } }), /typed field: use "port"/],
    ['key 65535', rec({ keys: { 65535: new Uint8Array(0) } }), /reserved/],
    [
      'key that is not a number',
      rec({ keys: { ['x' as unknown as number]: new Uint8Array(0) } }),
      /not an integer/,
    ],
    ['non-bytes key value', rec({ keys: { 700: 'abc' as unknown as Uint8Array } }), /must be a Uint8Array/],
    [
      'keys as a Map',
      rec({ keys: new Map([[700, Uint8Array.of(1)]]) as unknown as SvcParams['keys'] }),
      /plain object/,
    ],
    ['port 70000', rec({ port: 70000 }), /port 70000/],
    ['empty alpn list', rec({ alpn: [] }), /at least one item/],
    ['empty alpn id', rec({ alpn: [''] }), /1-255 octets/],
    ['alpn id of 256 octets', rec({ alpn: ['x'.repeat(256)] }), /1-255 octets/],
    ['alpn id above U+00FF', rec({ alpn: ['h€'] }), /above U\+00FF/],
    ['ipv4 with a leading zero', rec({ ipv4hint: ['010.0.0.1'] }), /not an IPv4 address/],
    ['ipv4 octet over 255', rec({ ipv4hint: ['256.0.0.1'] }), /not an IPv4 address/],
    ['ipv6 with two ::', rec({ ipv6hint: ['1::2::3'] }), /not an IPv6 address/],
    ['ipv6 zone id', rec({ ipv6hint: ['fe80::1%eth0'] }), /not an IPv6 address/],
    ['mandatory unknown name', rec({ mandatory: ['bogus' as 'alpn'], alpn: ['h2'] }), /unknown SvcParamKey/],
    ['mandatory key missing', rec({ mandatory: ['ech'] }), /mandatory lists ech/],
    ['mandatory listing itself', rec({ mandatory: ['mandatory'] }), /must not list itself/],
    ['mandatory duplicate via alias', rec({ mandatory: ['alpn', 'key1'], alpn: ['h2'] }), /twice/],
    ['no-default-alpn without alpn', rec({ noDefaultAlpn: true }), /requires alpn/],
    ['tls groups duplicate', rec({ tlsSupportedGroups: [29, 29] }), /twice/],
    ['tls group out of range', rec({ tlsSupportedGroups: [70000] }), /0-65535/],
    ['empty ech', rec({ ech: new Uint8Array(0) }), /non-empty bytes/],
    ['dohpath with a lone surrogate', rec({ dohpath: '/q{?dns}\ud800' }), /well-formed/],
    [
      'RDATA over 65535 octets',
      rec({ keys: { 700: new Uint8Array(40000), 701: new Uint8Array(30000) } }),
      /over 65535/,
    ],
  ])('rejects %s', (_, record, message) => {
    expectInvalid(() => encodeSvcbRdata(record), message);
  });

  it('treats false flags and undefined fields as absent', () => {
    const bytes = encodeSvcbRdata(rec({ noDefaultAlpn: false, ohttp: false, port: undefined }));
    expect(bytes.toString('hex')).toBe('000103737663076578616d706c6500');
  });
});
