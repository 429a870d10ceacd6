import { describe, expect, it } from 'vitest';
import {
  encodeSvcbRdata,
  formatSvcbPresentation,
  formatSvcbZoneLine,
  parseSvcbPresentation,
  parseSvcbZoneLine,
  safeParseSvcbPresentation,
} from './index.js';

const parse = parseSvcbPresentation;
const params = (text: string) => parse(text).params;

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

describe('parseSvcbPresentation: zone-file syntax', () => {
  it('joins lines inside parentheses and skips comments', () => {
    const rec = parse('1 svc.example. ( alpn=h2 ; first line\n  port=443 ; second line\n)');
    expect(rec).toEqual({ priority: 1, target: 'svc.example.', params: { alpn: ['h2'], port: 443 } });
  });

  it.each([
    ['text after the end of the record', '1 .\nport=53', /after the end of the record/],
    ['an unbalanced "("', '1 . ( port=53', /unbalanced "\("/],
    ['an unbalanced ")"', '1 . port=53 )', /unbalanced "\)"/],
    ['an unterminated quote', '1 . key123="abc', /unterminated/],
    ['a lone trailing backslash', '1 . key123=abc\\', /lone backslash/],
    ['a missing TargetName', '1', /SvcPriority and a TargetName/],
    ['a negative priority', '-1 .', /SvcPriority/],
    ['priority 65536', '65536 .', /SvcPriority/],
    ['AliasMode with params', '0 foo.example. alpn=h2', /AliasMode/],
    ['a relative "@" target', '1 @', /absolute/],
  ])('rejects %s', (_, text, message) => {
    expectInvalid(() => parse(text), message);
  });

  it('reads the RFC 3597 generic form and checks its length', () => {
    expect(parse('\\# 3 000100')).toEqual({ priority: 1, target: '.', params: {} });
    expectInvalid(() => parse('\\# 4 000100'), /says 4 octets but has 3/);
    expectInvalid(() => parse('\\# 2 0001 0'), /pairs of hex digits/);
    expectInvalid(() => parse('\\# 0001'), /says 1 octets but has 0/);
  });

  it('returns error values from safeParseSvcbPresentation', () => {
    const res = safeParseSvcbPresentation('1 . port=x');
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.code).toBe('INVALID_SVCB');
    expect(safeParseSvcbPresentation('1 .')).toEqual({
      ok: true,
      value: { priority: 1, target: '.', params: {} },
    });
  });
});

describe('parseSvcbPresentation: keys and values', () => {
  it.each([
    ['leading zeros in keyNNNNN', '1 . key0123=a', /unknown SvcParamKey/],
    ['key65535', '1 . key65535=a', /reserved/],
    ['key65536', '1 . key65536=a', /not an integer 0-65534/],
    ['an upper-case name', '1 . ALPN=h2', /unknown SvcParamKey/],
    ['an unknown name', '1 . well-known=x', /unknown SvcParamKey/],
    ['an Object prototype name', '1 . constructor=x', /unknown SvcParamKey/],
    ['"=" without a value', '1 . key123=', /has "=" but no value/],
    ['the same key by name and number', '1 . port=53 key3="\\000\\053"', /more than once/],
    ['escapes in port', '1 . port=\\053\\051', /must not contain escape sequences/],
    ['escapes in ipv4hint', '1 . ipv4hint=192.0.2.\\049', /must not contain escape sequences/],
    ['escapes in ipv6hint', '1 . ipv6hint=\\058:1', /must not contain escape sequences/],
    ['escapes in mandatory', '1 . mandatory=\\097lpn alpn=h2', /must not contain escape sequences/],
    ['a two-digit decimal escape', '1 . key123=\\25x', /bad decimal escape/],
    ['a decimal escape over 255', '1 . key123=\\256', /bad decimal escape/],
    ['a quote inside a bare value', '1 . key123=a"b"', /must be escaped/],
    ['an unescaped quote inside quotes', '1 . key123="a""b"', /must be escaped/],
    ['text after a closing quote', '1 . key123="a"b', /quoted as a whole/],
    ['an odd number of quotes', '1 . key123="a"b"', /unterminated/],
    ['a control character', '1 . key123=a\u0001b', /must be escaped/],
    ['a non-ASCII character', '1 . key123=é', /must be escaped/],
    ['port out of range', '1 . port=65536', /port "65536"/],
    ['port with a sign', '1 . port=+53', /port "\+53"/],
    ['a bad list escape in alpn', '1 . alpn="a\\\\b"', /may only escape/],
    ['an empty alpn item', '1 . alpn=h2,,h3', /empty item/],
    ['a trailing comma in alpn', '1 . alpn=h2,', /empty item/],
    ['bad base64 in ech', '1 . ech=abc', /base64/],
    ['non-UTF-8 dohpath', '1 . dohpath=/\\255{?dns}', /not valid UTF-8/],
    ['ohttp with a value', '1 . ohttp=1', /empty value/],
    ['a duplicate tls group', '1 . tls-supported-groups=29,29', /twice/],
    ['a non-decimal tls group', '1 . tls-supported-groups=x25519', /not a decimal/],
    ['an IPv6 address in ipv4hint', '1 . ipv4hint=::1', /not an IPv4 address/],
    ['an IPv4 address in ipv6hint', '1 . ipv6hint=192.0.2.1', /not an IPv6 address/],
    ['a mandatory key with no value', '1 . mandatory=alpn', /mandatory lists alpn/],
    ['no-default-alpn without alpn', '1 . no-default-alpn', /requires alpn/],
  ])('rejects %s', (_, text, message) => {
    expectInvalid(() => parse(text), message);
  });

  it('takes a quoted port without escapes', () => {
    expect(params('1 . port="8004"')).toEqual({ port: 8004 });
  });

  it('uses the keyNNNNN value as wire bytes, also for registered keys', () => {
    expect(params('1 . key3="\\000\\053"')).toEqual({ port: 53 });
    expect(params('1 . key1=\\002h2')).toEqual({ alpn: ['h2'] });
    expect(params('1 . key1=\\002h2 key2')).toEqual({ alpn: ['h2'], noDefaultAlpn: true });
    expectInvalid(() => parse('1 . key3=5'), /port must be 2 octets/);
  });

  it('decodes value lists as in RFC 9460 Appendix A.1', () => {
    const expected = ['part1', 'part2', 'part3,part4\\'];
    expect(params('1 . alpn="part1,part2,part3\\\\,part4\\\\\\\\"').alpn).toEqual(expected);
    expect(params('1 . alpn=part1\\,\\p\\a\\r\\t2\\044part3\\092,part4\\092\\\\').alpn).toEqual(expected);
  });

  it('accepts the section 8 example and normalises mandatory', () => {
    const p = params('1 . ech=AAL+DQ== key65333=ex1 key65444=ex2 mandatory=key65444,ech');
    expect(p.mandatory).toEqual(['ech', 'key65444']);
    expect(p.ech).toEqual(Uint8Array.of(0, 2, 0xfe, 0x0d));
    expect(formatSvcbPresentation({ priority: 1, target: '.', params: p })).toBe(
      '1 . mandatory=ech,key65444 ech=AAL+DQ== key65333=ex1 key65444=ex2',
    );
  });

  it('reads flags, empty generic values and quoted blanks', () => {
    expect(params('1 . alpn=h3 no-default-alpn ohttp key123 key124="" key125="a b;(c)"')).toEqual({
      alpn: ['h3'],
      noDefaultAlpn: true,
      ohttp: true,
      keys: { 123: new Uint8Array(0), 124: new Uint8Array(0), 125: new TextEncoder().encode('a b;(c)') },
    });
  });

  it('reads dohpath and tls-supported-groups', () => {
    expect(params('1 . dohpath=/dns-query{?dns} tls-supported-groups=4588,29')).toEqual({
      dohpath: '/dns-query{?dns}',
      tlsSupportedGroups: [4588, 29],
    });
  });
});

describe('formatSvcbPresentation', () => {
  it('quotes and escapes only where needed, and reads its own output back', () => {
    const rec = {
      priority: 7,
      target: 'a\\.b.example',
      params: {
        alpn: ['h2', 'x y', 'q"'],
        ipv6hint: ['2001:0db8:0000:0000:0000:0000:0000:0001', '::ffff:192.0.2.1'],
        keys: { 700: Uint8Array.of(0x22, 0x5c, 0x3b, 0x28, 0x29, 0x00, 0xff, 0x41) },
      },
    };
    const text = formatSvcbPresentation(rec);
    expect(text).toBe(
      '7 a\\.b.example. alpn="h2,x y,q\\"" ipv6hint=2001:db8::1,::ffff:192.0.2.1 key700="\\"\\\\\\;\\(\\)\\000\\255A"',
    );
    const back = parse(text);
    expect(encodeSvcbRdata(back)).toEqual(encodeSvcbRdata(rec));
  });

  it('prints AliasMode without params', () => {
    expect(formatSvcbPresentation({ priority: 0, target: 'pool.svc.example', params: {} })).toBe(
      '0 pool.svc.example.',
    );
  });

  it('refuses what it could not encode', () => {
    expectInvalid(
      () => formatSvcbPresentation({ priority: 1, target: '.', params: { port: -1 } }),
      /port -1/,
    );
  });
});

describe('zone lines', () => {
  it.each([
    ['svc.example. 300 IN SVCB 1 . port=53', { ttl: 300, class: 'IN', rrtype: 'SVCB' }],
    ['svc.example. IN 300 HTTPS 1 . port=53', { ttl: 300, class: 'IN', rrtype: 'HTTPS' }],
    ['svc.example svcb 1 . port=53', { rrtype: 'SVCB' }],
    ['svc.example. in TYPE65 1 . port=53', { class: 'IN', rrtype: 'HTTPS' }],
  ])('parses %s', (line, fields) => {
    const rr = parseSvcbZoneLine(line);
    expect(rr).toEqual({
      owner: 'svc.example.',
      ...fields,
      record: { priority: 1, target: '.', params: { port: 53 } },
    });
    expect(parseSvcbZoneLine(formatSvcbZoneLine(rr))).toEqual(rr);
  });

  it.each([
    ['another RR type', 'svc.example. 300 IN SRV 1 1 443 a.example.', /expected SVCB or HTTPS/],
    ['a missing type', 'svc.example. 300 IN', /expected SVCB or HTTPS/],
    ['a line without owner', '  300 IN SVCB 1 .', /start with its owner/],
  ])('rejects %s', (_, line, message) => {
    expectInvalid(() => parseSvcbZoneLine(line), message);
  });

  it('prints a DNS-AID style line', () => {
    const line = formatSvcbZoneLine({
      owner: '_planning._a2a._agents.agents.internal',
      ttl: 30,
      class: 'IN',
      rrtype: 'SVCB',
      record: { priority: 1, target: 'planner-1.agents.internal.', params: { alpn: ['a2a'], port: 8443 } },
    });
    expect(line).toBe(
      '_planning._a2a._agents.agents.internal. 30 IN SVCB 1 planner-1.agents.internal. alpn=a2a port=8443',
    );
  });
});
