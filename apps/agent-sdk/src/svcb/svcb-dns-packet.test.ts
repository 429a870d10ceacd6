import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import {
  type DnsPacketAnswerLike,
  fromDnsPacketAnswer,
  readSvcbAnswers,
  type SvcbRecord,
  svcbQuestion,
  svcbRrTypeOf,
  toDnsPacketAnswer,
} from './index.js';

const record: SvcbRecord = {
  priority: 1,
  target: 'planner-1.agents.internal.',
  params: {
    alpn: ['a2a'],
    port: 8443,
    ipv4hint: ['127.0.0.1'],
    keys: { 65409: new TextEncoder().encode('agent-card.json') },
  },
};

describe('dns-packet round trip', () => {
  it('carries SVCB and HTTPS answers through a full DNS message', () => {
    const message = dnsPacket.encode({
      type: 'response',
      id: 4242,
      flags: dnsPacket.AUTHORITATIVE_ANSWER,
      questions: [svcbQuestion('_planning._a2a._agents.agents.internal')],
      answers: [
        toDnsPacketAnswer({ name: '_planning._a2a._agents.agents.internal', ttl: 30, record }),
        { type: 'A', name: 'planner-1.agents.internal', ttl: 30, data: '127.0.0.1' },
        toDnsPacketAnswer({
          name: 'agents.internal',
          ttl: 60,
          rrtype: 'HTTPS',
          record: { priority: 0, target: 'x.example.', params: {} },
        }),
      ],
    });
    // Type 64 on the wire, right after the question name (2 octets type, 2 octets class).
    const qnameEnd = message.indexOf(Buffer.from('agents\x08internal\x00', 'latin1')) + 16;
    expect(message.readUInt16BE(qnameEnd)).toBe(64);

    const decoded = dnsPacket.decode(message);
    expect(decoded.questions?.[0]).toMatchObject({
      type: 'UNKNOWN_64',
      name: '_planning._a2a._agents.agents.internal',
    });
    const answers = decoded.answers as unknown as DnsPacketAnswerLike[];
    expect(answers.map((a) => a.type)).toEqual(['UNKNOWN_64', 'A', 'UNKNOWN_65']);

    const svcb = readSvcbAnswers(answers);
    expect(svcb).toEqual({
      ok: true,
      value: [
        { name: '_planning._a2a._agents.agents.internal', ttl: 30, class: 'IN', rrtype: 'SVCB', record },
      ],
    });
    const https = readSvcbAnswers(answers, 'HTTPS');
    expect(https.ok && https.value[0]?.record).toEqual({ priority: 0, target: 'x.example.', params: {} });
  });

  it('fails the whole set when one record is malformed', () => {
    const good = toDnsPacketAnswer({ name: 'a.example', record }) as unknown as DnsPacketAnswerLike;
    const bad: DnsPacketAnswerLike = {
      type: 'UNKNOWN_64',
      name: 'a.example',
      ttl: 5,
      data: Buffer.from('0001000003000135', 'hex'),
    };
    const res = readSvcbAnswers([good, bad]);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.code).toBe('INVALID_SVCB');
  });

  it('reports non-SVCB answers and missing RDATA as error values', () => {
    expect(fromDnsPacketAnswer({ type: 'A', name: 'a', data: '127.0.0.1' }).ok).toBe(false);
    expect(fromDnsPacketAnswer({ type: 'UNKNOWN_64', name: 'a', data: 'x' }).ok).toBe(false);
  });

  it('maps every spelling of the two types', () => {
    expect(['UNKNOWN_64', 'SVCB', 'type64', 64].map(svcbRrTypeOf)).toEqual(['SVCB', 'SVCB', 'SVCB', 'SVCB']);
    expect(['UNKNOWN_65', 'https', 65].map(svcbRrTypeOf)).toEqual(['HTTPS', 'HTTPS', 'HTTPS']);
    expect(svcbRrTypeOf('SRV')).toBeUndefined();
  });

  it('refuses an invalid record or TTL before building the answer', () => {
    expect(() => toDnsPacketAnswer({ name: 'a', record: { ...record, priority: 0 } })).toThrow(/AliasMode/);
    expect(() => toDnsPacketAnswer({ name: 'a', ttl: -5, record })).toThrow(/TTL/);
  });
});
