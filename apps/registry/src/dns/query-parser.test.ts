import { describe, expect, it } from 'vitest';
import { parseQuery, RCODE } from './query-parser.js';

const header = (arcount = 0) => Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, arcount]);
// `Agents.Internal` IN SRV
const question = Buffer.concat([
  Buffer.from([6]),
  Buffer.from('Agents'),
  Buffer.from([8]),
  Buffer.from('Internal'),
  Buffer.from([0, 0, 33, 0, 1]),
]);
/** An OPT RR: root owner, class = UDP size, TTL word = ext-rcode/version/flags, then options. */
function opt(
  options: Buffer = Buffer.alloc(0),
  { owner = Buffer.from([0]), size = 1232, version = 0, dnssecOk = false } = {},
) {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(41, 0);
  fixed.writeUInt16BE(size, 2);
  fixed.writeUInt32BE(((version << 16) | (dnssecOk ? 0x8000 : 0)) >>> 0, 4);
  fixed.writeUInt16BE(options.length, 8);
  return Buffer.concat([owner, fixed, options]);
}
const cookie = Buffer.from([0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]);

describe('parseQuery', () => {
  it('reads the question exactly as sent, and EDNS', () => {
    const parsed = parseQuery(
      Buffer.concat([header(1), question, opt(cookie, { size: 4096, dnssecOk: true })]),
    );
    expect(parsed.kind).toBe('query');
    if (parsed.kind !== 'query') return;
    expect(parsed.id).toBe(0x1234);
    expect(parsed.message.subarray(12, parsed.qnameEnd)).toEqual(question.subarray(0, 17));
    expect([parsed.qtype, parsed.qclass]).toEqual([33, 1]);
    expect(parsed.edns).toEqual({ udpSize: 4096, version: 0, dnssecOk: true });
  });

  it('accepts additional RRs with backward compression pointers, and reports EDNS versions', () => {
    const tsigLike = Buffer.concat([
      Buffer.from([0xc0, 12]),
      Buffer.from([0, 250, 0, 255, 0, 0, 0, 0, 0, 0]),
    ]);
    const parsed = parseQuery(Buffer.concat([header(2), question, tsigLike, opt(undefined, { version: 1 })]));
    expect(parsed.kind === 'query' && parsed.edns?.version).toBe(1);
  });

  it.each([
    ['two OPT RRs', Buffer.concat([header(2), question, opt(), opt()])],
    [
      'an OPT RR not owned by the root',
      Buffer.concat([header(1), question, opt(undefined, { owner: Buffer.from([1, 97, 0]) })]),
    ],
    [
      'an EDNS option running past its RR',
      Buffer.concat([header(1), question, opt(Buffer.from([0, 10, 0, 9, 1]))]),
    ],
    [
      'a forward compression pointer',
      Buffer.concat([header(1), question, Buffer.from([0xc0, 40]), opt().subarray(1)]),
    ],
    [
      'an OPT RR owned by a compressed name',
      Buffer.concat([header(1), question, Buffer.from([0xc0, 12]), opt().subarray(1)]),
    ],
    [
      'a label of 64 octets',
      Buffer.concat([header(), Buffer.from([64]), Buffer.alloc(64, 97), Buffer.from([0, 0, 1, 0, 1])]),
    ],
    [
      'a name past 255 octets',
      Buffer.concat([
        header(),
        ...Array.from({ length: 5 }, () => Buffer.concat([Buffer.from([60]), Buffer.alloc(60, 97)])),
        Buffer.from([0, 0, 1, 0, 1]),
      ]),
    ],
    ['a missing question type', Buffer.concat([header(), question.subarray(0, 18)])],
    ['an additional count with nothing behind it', Buffer.concat([header(3), question])],
    ['trailing bytes', Buffer.concat([header(), question, Buffer.from([0])])],
  ])('answers FORMERR to %s', (_what, msg) => {
    expect(parseQuery(msg)).toMatchObject({ kind: 'error', rcode: RCODE.FORMERR, id: 0x1234 });
  });

  it('answers NOTIMP to other opcodes and stays silent for responses and scraps', () => {
    const update = Buffer.concat([header(), question]);
    update.writeUInt16BE(5 << 11, 2);
    expect(parseQuery(update)).toMatchObject({ kind: 'error', rcode: RCODE.NOTIMP });
    const response = Buffer.concat([header(), question]);
    response.writeUInt16BE(0x8000, 2);
    expect(parseQuery(response)).toEqual({ kind: 'drop' });
    expect(parseQuery(Buffer.alloc(11))).toEqual({ kind: 'drop' });
  });
});
