import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGENT_BAP_KEY,
  AGENT_CARD_SHA256_KEY,
  AGENT_CARD_URL_KEY,
  agentCardDigest,
  DNS_AID_KEYS,
  decodeSvcbRdata,
  encodeSvcbRdata,
  formatSvcbPresentation,
  getTextParam,
  PRIVATE_USE_KEY_MIN,
  parseSvcbPresentation,
  readAgentCard,
  setTextParam,
  withAgentCard,
} from './index.js';

const url = 'https://planner.agents.internal/.well-known/agent-card.json';
const sha256 = agentCardDigest('{"name":"planner"}');

describe('agent card keys', () => {
  it('computes the digest as 43 base64url characters', () => {
    expect(sha256).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(agentCardDigest(new TextEncoder().encode('{"name":"planner"}'))).toBe(sha256);
  });

  it('puts cap, cap-sha256 and bap on the wire as DNS-AID numbers them and reads them back', () => {
    const params = withAgentCard(
      { mandatory: ['alpn', 'port'], alpn: ['a2a'], port: 8443 },
      { url, sha256, bap: ['a2a/1'] },
    );
    const rec = decodeSvcbRdata(encodeSvcbRdata({ priority: 1, target: '.', params }));
    expect(readAgentCard(rec.params)).toEqual({ ok: true, value: { url, sha256, bap: ['a2a/1'] } });
    expect(formatSvcbPresentation(rec)).toBe(
      `1 . mandatory=alpn,port alpn=a2a port=8443 key65400=${url} key65401=${sha256} key65402=a2a/1`,
    );
  });

  it('numbers the DNS-AID keys from one table, in the RFC 9460 private-use range', () => {
    expect(DNS_AID_KEYS).toEqual({
      cap: 65400,
      'cap-sha256': 65401,
      bap: 65402,
      policy: 65403,
      realm: 65404,
      sig: 65405,
    });
    for (const key of Object.values(DNS_AID_KEYS)) expect(key).toBeGreaterThanOrEqual(PRIVATE_USE_KEY_MIN);
    expect([AGENT_CARD_URL_KEY, AGENT_CARD_SHA256_KEY, AGENT_BAP_KEY]).toEqual([65400, 65401, 65402]);
  });

  it('reads the keys from presentation form', () => {
    const rec = parseSvcbPresentation(`1 . key65400="${url}" key65401=${sha256}`);
    expect(readAgentCard(rec.params)).toEqual({ ok: true, value: { url, sha256 } });
  });

  it('keeps other generic keys when setting text', () => {
    const p = setTextParam({ keys: { 700: Uint8Array.of(1) } }, AGENT_CARD_URL_KEY, url);
    expect(p.keys?.[700]).toEqual(Uint8Array.of(1));
    expect(getTextParam(p, AGENT_CARD_URL_KEY)).toBe(url);
    expect(getTextParam(p, AGENT_CARD_SHA256_KEY)).toBeUndefined();
  });

  it.each([
    ['a relative URL', { url: '/card.json', sha256 }, /not an absolute URL/],
    ['a non-http URL', { url: 'ftp://x/card.json', sha256 }, /http or https/],
    ['a hex digest', { url, sha256: 'ab'.repeat(32) }, /base64url SHA-256/],
    ['a padded digest', { url, sha256: `${sha256.slice(0, 42)}=` }, /base64url SHA-256/],
    ['an empty bap list', { url, sha256, bap: [] }, /bap list/],
    ['a bap entry with a space', { url, sha256, bap: ['a2a 1'] }, /bap list/],
    ['a bap entry with a comma', { url, sha256, bap: ['a2a/1,mcp'] }, /bap list/],
  ])('refuses %s', (_, card, message) => {
    expect(() => withAgentCard({}, card)).toThrow(message);
  });

  it('refuses text on a typed key and invalid UTF-8 on read', () => {
    expect(() => setTextParam({}, 3, '53')).toThrow(/typed SvcParams field/);
    expect(() => getTextParam({ keys: { 65400: Uint8Array.of(0xff) } }, 65400)).toThrow(/not valid UTF-8/);
    const res = readAgentCard({ keys: { [AGENT_CARD_SHA256_KEY]: new TextEncoder().encode('nope') } });
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.code).toBe('INVALID_SVCB');
  });
});

describe('setTextParam', () => {
  it('stores the UTF-8 octets of any well-formed text, astral characters included', () => {
    const params = setTextParam({ port: 1 }, 65_410, 'café 🤖');
    expect(Buffer.from(params.keys![65_410]!).toString('utf8')).toBe('café 🤖');
    expect(getTextParam(params, 65_410)).toBe('café 🤖');
    expect(params.port).toBe(1);
  });

  it('refuses text with a lone surrogate, which has no UTF-8 form', () => {
    expect(() => setTextParam({}, 65_410, 'a\ud800b')).toThrow(/well-formed/);
    expect(() => setTextParam({}, 65_410, '\udc00')).toThrow(/well-formed/);
  });
});

/** Whether withAgentCard takes `card` (true), or the ReachError code it throws. */
function verdict(card: { url: string; sha256: string }): true | string {
  try {
    withAgentCard({}, card);
    return true;
  } catch (e) {
    return (e as { code: string }).code;
  }
}

describe('withAgentCard checks agree with their plain definitions', () => {
  // The definitions the cheaper checks replace: `new URL` with an http(s) scheme, and a base64url round trip.
  const urlOk = (text: string) => {
    try {
      const u = new URL(text);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  };
  const shaOk = (text: string) =>
    /^[A-Za-z0-9_-]{43}$/.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text;
  const urlVerdict = (text: string) => verdict({ url: text, sha256 });
  const expected = (ok: boolean) => (ok ? true : 'INVALID_SVCB');

  it.each([
    'http://127.0.0.1:8001/.well-known/agent-card.json',
    'https://10.0.0.7/.well-known/agent-card.json',
    'http://255.255.255.255:65535/',
    'http://0.0.0.0:0',
    'http://1.2.3.4',
    'http://1.2.3.4:/x',
    'http://1.2.3.4:65536/x',
    'http://1.2.3.4:99999/x',
    'http://1.2.3.4:080/x',
    'http://01.2.3.4/x',
    'http://08.2.3.4/x',
    'http://256.2.3.4/x',
    'http://1.2.3/x',
    'http://1.2.3.4.5/x',
    'http://1.2.3.4/../../x',
    'http://1.2.3.4/a b',
    'http://1.2.3.4/a?b#c',
    'HTTP://1.2.3.4/x',
    'ftp://1.2.3.4/x',
    'http://[::1]:8001/.well-known/agent-card.json',
    'http://planner.agents.internal/x',
    'http:/1.2.3.4/x',
    'http://1.2.3.4\\x',
    '/relative',
    '',
  ])('judges the URL %j as new URL does', (text) => {
    expect(urlVerdict(text)).toBe(expected(urlOk(text)));
  });

  it('judges generated URLs as new URL does', () => {
    const octet = fc.oneof(
      fc.integer({ min: 0, max: 300 }).map(String),
      fc.constantFrom('00', '01', '08', '010', '0x1', '1e1', ''),
    );
    const port = fc.oneof(
      fc.integer({ min: 0, max: 70_000 }).map((p) => `:${p}`),
      fc.constantFrom('', ':', ':00', ':08080', ':-1', ':1a'),
    );
    const path = fc.oneof(
      fc.string({
        unit: fc.constantFrom('a', 'Z', '0', '.', '_', '~', '-', '/', ' ', '%', '?', '#', '\\', 'é'),
      }),
      fc.constant('/.well-known/agent-card.json'),
    );
    const url = fc
      .tuple(
        fc.constantFrom('http://', 'https://', 'HTTP://', 'ftp://', 'http:/', 'http:///'),
        fc.array(octet, { minLength: 3, maxLength: 5 }),
        port,
        path,
      )
      .map(([scheme, octets, p, rest]) => `${scheme}${octets.join('.')}${p}${rest}`);
    fc.assert(
      fc.property(url, (text) => urlVerdict(text) === expected(urlOk(text))),
      { numRuns: 3000 },
    );
  });

  it('judges every last character of a digest as the base64url round trip does', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const prefixes = [sha256.slice(0, 42), 'A'.repeat(42), '_'.repeat(42), agentCardDigest('x').slice(0, 42)];
    for (const prefix of prefixes) {
      for (const last of `${alphabet}=+/.`) {
        const text = prefix + last;
        expect(verdict({ url, sha256: text })).toBe(expected(shaOk(text)));
      }
    }
    for (const text of [
      sha256.slice(0, 42),
      `${sha256}A`,
      `${sha256.slice(0, 42)}=`,
      '',
      `${sha256.slice(0, 41)}+A`,
    ]) {
      expect(verdict({ url, sha256: text })).toBe(expected(shaOk(text)));
    }
  });

  it('judges generated digests as the base64url round trip does', () => {
    const digest = fc.string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/='),
      minLength: 42,
      maxLength: 44,
    });
    fc.assert(
      fc.property(digest, (text) => verdict({ url, sha256: text }) === expected(shaOk(text))),
      { numRuns: 3000 },
    );
  });
});
