import { describe, expect, it } from 'vitest';
import {
  AGENT_CARD_SHA256_KEY,
  AGENT_CARD_URL_KEY,
  agentCardDigest,
  decodeSvcbRdata,
  encodeSvcbRdata,
  formatSvcbPresentation,
  getTextParam,
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

  it('puts the three keys on the wire and reads them back', () => {
    const params = withAgentCard(
      { alpn: ['a2a'], port: 8443 },
      { url, sha256, wellKnown: 'agent-card.json' },
    );
    const rec = decodeSvcbRdata(encodeSvcbRdata({ priority: 1, target: '.', params }));
    expect(readAgentCard(rec.params)).toEqual({
      ok: true,
      value: { url, sha256, wellKnown: 'agent-card.json' },
    });
    expect(formatSvcbPresentation(rec)).toBe(
      `1 . alpn=a2a port=8443 key65400=${url} key65401=${sha256} key65409=agent-card.json`,
    );
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
    ['a well-known path with ..', { url, sha256, wellKnown: '../etc/passwd' }, /relative well-known path/],
    [
      'an absolute well-known path',
      { url, sha256, wellKnown: '/agent-card.json' },
      /relative well-known path/,
    ],
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
