import { agentCardDigest } from '@agent-reach/sdk/svcb';
import dnsPacket from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instanceRecord } from '../testing/fixtures.js';
import { entryData, entryFromData, instanceEntry } from './instance-entry.js';
import { RRTYPE } from './rr.js';

type Codec = { encode(data: unknown): Buffer };
const codec = (type: string) => (dnsPacket as unknown as { record(type: string): Codec }).record(type);
const rdataOf = (type: string, data: unknown) => codec(type).encode(data).subarray(2);

const u16 = (n: number) => [n >> 8, n & 0xff];
const param = (key: number, value: Uint8Array | number[]) => [...u16(key), ...u16(value.length), ...value];
const wireName = (name: string) =>
  name === '.'
    ? [0]
    : [
        ...name
          .slice(0, -1)
          .split('.')
          .flatMap((l) => [l.length, ...Buffer.from(l)]),
        0,
      ];

/** The instance's SVCB RDATA written out by hand from RFC 9460 section 2.2, key by key. */
function referenceSvcb(record: ReturnType<typeof instanceRecord>, target: string): Buffer {
  const { host, port, alpn } = record.endpoint;
  const v6 = host.includes(':');
  return Buffer.from([
    ...u16(1),
    ...wireName(target),
    // mandatory=alpn,port (RFC 9460 section 8: the keys in increasing order).
    ...param(0, [...u16(1), ...u16(3)]),
    ...param(
      1,
      alpn.flatMap((id) => [id.length, ...Buffer.from(id, 'latin1')]),
    ),
    ...param(3, u16(port)),
    ...param(v6 ? 6 : 4, rdataOf(v6 ? 'AAAA' : 'A', host)),
    ...param(65400, Buffer.from(record.card_url)),
    ...param(65401, Buffer.from(record.card_sha256)),
    // DNS-AID bap: the protocol and its major version.
    ...param(65402, Buffer.from('a2a/1')),
  ]);
}

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/).filter((l) => l !== 'ns');
const host = fc.oneof(
  fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => b.join('.')),
  fc.constantFrom('::1', 'fd00::7', '2001:db8::1:2'),
);
const alpnId = fc.constantFrom('http/1.1', 'h2', 'h3', 'a2a');
const apex = fc.constantFrom('agents.internal', 'a.b.c', 'reach_test.example');

describe('instanceEntry', () => {
  it('encodes the same records as dns-packet and a hand-written SVCB encoding, for generated instances', () => {
    fc.assert(
      fc.property(
        label,
        host,
        fc.integer({ min: 1, max: 0xffff }),
        fc.uniqueArray(alpnId, { minLength: 1, maxLength: 3 }),
        fc.string({ minLength: 1, maxLength: 8 }),
        apex,
        (id, ip, port, alpn, card, zone) => {
          const base = instanceRecord(id, port);
          const urlHost = ip.includes(':') ? `[${ip}]` : ip;
          const record = {
            ...base,
            endpoint: { ...base.endpoint, host: ip, alpn },
            card_url: `http://${urlHost}:${port}/.well-known/agent-card.json`,
            card_sha256: agentCardDigest(card),
          };
          const entry = instanceEntry(record, zone);
          if (!entry.ok) throw entry.error;
          const e = entry.value;
          const target = `${id}.${zone}.`;
          expect(e.target).toBe(target);
          expect(e.selfSvcb.rdata).toEqual(referenceSvcb(record, '.'));
          expect(e.indexSvcbAt(1).rdata).toEqual(referenceSvcb(record, target));
          expect(e.indexSvcbAt(7).rdata).toEqual(
            Buffer.from([0, 7, ...referenceSvcb(record, target).subarray(2)]),
          );
          expect(e.srv(10, 80).rdata).toEqual(rdataOf('SRV', { priority: 10, weight: 80, port, target }));
          const type = ip.includes(':') ? 'AAAA' : 'A';
          expect(e.address.type).toBe(RRTYPE[type]);
          expect(e.address.rr.rdata).toEqual(rdataOf(type, ip));
          expect(e.wire).toEqual(Buffer.from(wireName(`${id}.`).slice(0, -1)));
          // As a replica gets it: through JSON, laid out again without encoding the registration.
          const copy = entryFromData(JSON.parse(JSON.stringify(entryData(e))), zone, 0);
          expect(copy.name).toBe(e.name);
          expect(copy.declaration).toEqual(e.declaration);
          expect(copy.selfSvcb.rdata).toEqual(e.selfSvcb.rdata);
          expect(copy.indexSvcbAt(1).rdata).toEqual(e.indexSvcbAt(1).rdata);
          expect(copy.srv(10, 80).rdata).toEqual(e.srv(10, 80).rdata);
          expect(copy.address.type).toBe(e.address.type);
          expect(copy.address.rr.rdata).toEqual(e.address.rr.rdata);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ['an unusable label', { instance_id: 'Bad_Label' }, 'INVALID_DECLARATION'],
    ['a reserved label', { instance_id: 'ns' }, 'INVALID_DECLARATION'],
    ['a card URL that is not http(s)', { card_url: 'ftp://127.0.0.1/x' }, 'INVALID_SVCB'],
    ['a card URL that does not parse', { card_url: 'http://127.0.0.08:80/x' }, 'INVALID_SVCB'],
    ['a relative card URL', { card_url: '/.well-known/agent-card.json' }, 'INVALID_SVCB'],
    ['a non-canonical digest', { card_sha256: `${'A'.repeat(42)}B` }, 'INVALID_SVCB'],
    ['a short digest', { card_sha256: 'A'.repeat(42) }, 'INVALID_SVCB'],
    ['a card URL with a lone surrogate', { card_url: 'http://[::1]/\ud800' }, 'INVALID_SVCB'],
  ])('refuses %s', (_, change, code) => {
    const entry = instanceEntry({ ...instanceRecord(), ...change }, 'agents.internal');
    expect(entry.ok).toBe(false);
    if (!entry.ok) expect(entry.error.code).toBe(code);
  });

  it.each([
    ['a port out of range', { port: 70_000 }],
    ['an empty alpn list', { alpn: [] }],
    ['an alpn id above U+00FF', { alpn: ['h\u0100'] }],
    ['a host that is no address', { host: '127.0.0.256' }],
  ])('refuses an endpoint with %s', (_, change) => {
    const base = instanceRecord();
    const entry = instanceEntry({ ...base, endpoint: { ...base.endpoint, ...change } }, 'agents.internal');
    expect(entry.ok).toBe(false);
    if (!entry.ok) expect(entry.error.code).toBe('INVALID_SVCB');
  });
});
