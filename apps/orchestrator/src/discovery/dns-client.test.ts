import { UdpDnsClient } from '@agent-reach/sdk/dns';
import { FakeDnsServer } from '@agent-reach/sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { srvTargets } from './dns-records.js';

describe('UdpDnsClient', () => {
  const server = new FakeDnsServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('reads an SRV answer with the target address from the additional section', async () => {
    server.records = [
      {
        type: 'SRV',
        name: '_writing._tcp.agents.internal',
        priority: 10,
        weight: 5,
        port: 9001,
        target: 'w1.agents.internal',
      },
      { type: 'A', name: 'w1.agents.internal', address: '127.0.0.1' },
    ];
    const client = new UdpDnsClient({ host: '127.0.0.1', port: server.port });
    const res = await client.query('_writing._tcp.agents.internal', 'SRV');
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.value.viaTcp).toBe(false);
    expect(srvTargets(res.value.answers, res.value.additionals, 'agents.internal')).toEqual([
      {
        instance: 'w1',
        target: 'w1.agents.internal',
        port: 9001,
        priority: 10,
        weight: 5,
        address: '127.0.0.1',
        cardUrl: null,
        cardSha256: null,
      },
    ]);
  });

  it('asks again over TCP when the UDP answer is truncated', async () => {
    server.records = Array.from({ length: 40 }, (_, i) => ({
      type: 'SRV' as const,
      name: '_research._tcp.agents.internal',
      priority: 10,
      weight: 10,
      port: 9000 + i,
      target: `research-${i}.agents.internal`,
    }));
    const before = server.asked.tcp.length;
    const client = new UdpDnsClient({ host: '127.0.0.1', port: server.port });
    const res = await client.query('_research._tcp.agents.internal', 'SRV');
    expect(res.ok && res.value.viaTcp).toBe(true);
    expect(res.ok && res.value.answers.length).toBe(40);
    expect(server.asked.tcp.length).toBe(before + 1);
  });

  it('pipelines truncated questions over one kept TCP connection, then asks them over TCP directly', async () => {
    const names = ['research', 'writing', 'planning'];
    server.records = names.flatMap((cap) =>
      Array.from({ length: 40 }, (_, i) => ({
        type: 'SRV' as const,
        name: `_${cap}._tcp.agents.internal`,
        priority: 10,
        weight: 10,
        port: 9000 + i,
        target: `${cap}-${i}.agents.internal`,
      })),
    );
    const connections = server.tcpConnections;
    const client = new UdpDnsClient({ host: '127.0.0.1', port: server.port });
    const ask = () => Promise.all(names.map((cap) => client.query(`_${cap}._tcp.agents.internal`, 'SRV')));
    const first = await ask();
    expect(first.map((r) => r.ok && r.value.viaTcp && r.value.answers[0]!.name)).toEqual(
      names.map((cap) => `_${cap}._tcp.agents.internal`),
    );
    const udpAsked = server.asked.udp.length;
    const second = await ask();
    expect(second.map((r) => r.ok && r.value.answers.length)).toEqual([40, 40, 40]);
    // Known to truncate: no UDP question the second time, and still the one connection.
    expect(server.asked.udp.length).toBe(udpAsked);
    expect(server.tcpConnections).toBe(connections + 1);
    server.dropTcpConnections();
    await new Promise((r) => setTimeout(r, 20));
    const third = await ask();
    expect(third.every((r) => r.ok && r.value.answers.length === 40)).toBe(true);
    expect(server.tcpConnections).toBe(connections + 2);
    client.close();
  });

  it('answers NXDOMAIN as a value with no records', async () => {
    server.records = [];
    const client = new UdpDnsClient({ host: '127.0.0.1', port: server.port });
    const res = await client.query('_nothing._tcp.agents.internal', 'SRV');
    expect(res.ok && res.value.rcode).toBe('NXDOMAIN');
    expect(res.ok && res.value.answers).toEqual([]);
  });

  it('returns UNAVAILABLE, not a throw, when nobody answers', async () => {
    const client = new UdpDnsClient({ host: '127.0.0.1', port: 9, timeoutMs: 100, udpTries: 1 });
    const res = await client.query('_x._tcp.agents.internal', 'SRV');
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.code).toBe('UNAVAILABLE');
  });
});
