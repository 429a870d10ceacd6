import { Resolver } from 'node:dns/promises';
import { waitFor } from '@agent-reach/registry/testing';
import { indexedCapabilities } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig, flags, kdig, requireTool, section, status } from './dns-tools.js';
import { agentBody, type RegistryWithDns, startRegistryWithDns } from './registry-harness.js';

let env: RegistryWithDns;
let port: number;
let summarizer: string;
let planner: string;
const crunchers: string[] = [];
const cardSha = agentBody({ name: 'summarizer-v2', port: 1, capabilities: [] }).card_sha256;

beforeAll(async () => {
  requireTool('dig');
  requireTool('kdig');
  env = await startRegistryWithDns();
  port = env.dns.port;
  summarizer = (
    await env.register(
      agentBody({
        name: 'summarizer-v2',
        port: 8001,
        capabilities: ['summarize'],
        serves: ['writing'],
        priority: 80,
      }),
    )
  ).instance_id;
  planner = (
    await env.register(
      agentBody({ name: 'planner', host: '::1', port: 8002, capabilities: ['plan'], serves: ['planning'] }),
    )
  ).instance_id;
  for (let i = 0; i < 60; i++) {
    crunchers.push(
      (await env.register(agentBody({ name: 'cruncher', port: 9000 + i, capabilities: ['crunch'] })))
        .instance_id,
    );
  }
  // The responder thread applies a registration a moment after its 201 (in slices under load), in
  // order: once it serves all 60 crunchers it serves everything registered before them too.
  await waitFor('the responder to serve all 60 crunchers', async () => {
    const srv = await dig(port, '+tcp', '_crunch._tcp.agents.internal', 'SRV');
    return section(srv, 'ANSWER').length === 60;
  });
});

afterAll(async () => {
  await env?.stop();
});

describe('the responder, asked by dig, kdig and node:dns', () => {
  it('answers A and AAAA for instance names, authoritatively', async () => {
    const a = await dig(port, `${summarizer}.agents.internal`, 'A');
    expect(status(a)).toBe('NOERROR');
    expect(flags(a)).toContain('aa');
    expect(section(a, 'ANSWER')).toEqual([[`${summarizer}.agents.internal.`, '15', 'IN', 'A', '127.0.0.1']]);
    expect(await kdig(port, '+short', `${planner}.agents.internal`, 'AAAA')).toBe('::1\n');
  });

  it('answers role and generic SRV with A glue', async () => {
    const srv = await dig(port, '_writing._tcp.agents.internal', 'SRV');
    expect(section(srv, 'ANSWER')).toEqual([
      [
        '_writing._tcp.agents.internal.',
        '15',
        'IN',
        'SRV',
        '10',
        // Weights are dynamic: the leader republishes them from health, load and warm-up.
        expect.stringMatching(/^[1-9][0-9]*$/),
        '8001',
        `${summarizer}.agents.internal.`,
      ],
    ]);
    expect(section(srv, 'ADDITIONAL')).toContainEqual([
      `${summarizer}.agents.internal.`,
      '15',
      'IN',
      'A',
      '127.0.0.1',
    ]);
    const generic = await dig(port, '+tcp', '_agent._tcp.agents.internal', 'SRV');
    expect(section(generic, 'ANSWER')).toHaveLength(62);
  });

  it('kdig prints the SVCB parameters of the capability index and of the flat name', async () => {
    const out = await kdig(port, '_summarize._a2a._agents.agents.internal', 'SVCB');
    const answer = section(out, 'ANSWER');
    expect(answer).toHaveLength(1);
    expect(answer[0]!.slice(0, 6)).toEqual([
      '_summarize._a2a._agents.agents.internal.',
      '15',
      'IN',
      'SVCB',
      '10',
      `${summarizer}.agents.internal.`,
    ]);
    expect(answer[0]!.slice(6)).toEqual([
      'mandatory=alpn,port',
      'alpn=http/1.1',
      'port=8001',
      'ipv4hint=127.0.0.1',
      'key65400="http://127.0.0.1:8001/.well-known/agent-card.json"',
      `key65401="${cardSha}"`,
      'key65402="a2a/1"',
    ]);
    expect(section(out, 'ADDITIONAL')).toContainEqual([
      `${summarizer}.agents.internal.`,
      '15',
      'IN',
      'A',
      '127.0.0.1',
    ]);
    const flat = section(await kdig(port, `${planner}.agents.internal`, 'SVCB'), 'ANSWER');
    expect(flat[0]!.slice(3, 10)).toEqual([
      'SVCB',
      '1',
      '.',
      'mandatory=alpn,port',
      'alpn=http/1.1',
      'port=8002',
      'ipv6hint=::1',
    ]);
    const viaDig = section(await dig(port, `${summarizer}.agents.internal`, 'SVCB'), 'ANSWER');
    expect(viaDig[0]!.slice(4, 9)).toEqual(['1', '.', 'mandatory=alpn,port', 'alpn="http/1.1"', 'port=8001']);
  });

  it('lists the capabilities in the agents= index TXT and serves SOA and NS at the apex', async () => {
    const txt = section(await dig(port, '_index._agents.agents.internal', 'TXT'), 'ANSWER');
    const strings = txt.flatMap((rr) => rr.slice(4).map((s) => s.replace(/^"|"$/g, '')));
    expect(strings).toEqual(['agents=crunch:a2a,plan:a2a,planning:a2a,summarize:a2a,writing:a2a']);
    expect(indexedCapabilities(strings)).toEqual(['crunch', 'plan', 'planning', 'summarize', 'writing']);
    const caps = section(await kdig(port, '_summarize._a2a._agents.agents.internal', 'TXT'), 'ANSWER');
    expect(caps.map((rr) => rr.slice(3))).toEqual([['TXT', '"capabilities=summarize"']]);
    const soa = section(await dig(port, 'agents.internal', 'SOA'), 'ANSWER');
    expect(soa[0]!.slice(3, 6)).toEqual(['SOA', 'ns.agents.internal.', 'hostmaster.agents.internal.']);
    expect(Number(soa[0]![6])).toBe(env.registry.zone.serial);
    expect(await dig(port, '+short', 'agents.internal', 'NS')).toBe('ns.agents.internal.\n');
  });

  it('works for node:dns (c-ares): SRV, A, AAAA and TXT', async () => {
    const resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([`127.0.0.1:${port}`]);
    expect(await resolver.resolveSrv('_writing._tcp.agents.internal')).toEqual([
      { name: `${summarizer}.agents.internal`, port: 8001, priority: 10, weight: expect.any(Number) },
    ]);
    expect(await resolver.resolve4(`${summarizer}.agents.internal`)).toEqual(['127.0.0.1']);
    expect(await resolver.resolve6(`${planner}.agents.internal`)).toEqual(['::1']);
    const txt = await resolver.resolveTxt('_index._agents.agents.internal');
    expect(indexedCapabilities(txt.flat())).toContain('summarize');
    await expect(resolver.resolve4('nobody.agents.internal')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveSrv(`${summarizer}.agents.internal`)).rejects.toMatchObject({
      code: 'ENODATA',
    });
  });

  it('tells NXDOMAIN from NODATA, empty non-terminals included, with the SOA in authority', async () => {
    const nx = await dig(port, 'nobody.agents.internal', 'A');
    expect(status(nx)).toBe('NXDOMAIN');
    expect(flags(nx)).toContain('aa');
    expect(section(nx, 'AUTHORITY')[0]!.slice(0, 4)).toEqual(['agents.internal.', '15', 'IN', 'SOA']);
    for (const [name, type] of [
      ['_tcp.agents.internal', 'SRV'],
      ['_agents.agents.internal', 'SVCB'],
      [`${summarizer}.agents.internal`, 'TXT'],
      ['_writing._tcp.agents.internal', 'A'],
      // The DNS-AID names: an SVCB owner answers NODATA for every other type, never NXDOMAIN.
      ['_a2a._agents.agents.internal', 'TXT'],
      ['_summarize._a2a._agents.agents.internal', 'A'],
      ['_summarize._a2a._agents.agents.internal', 'SRV'],
      ['_summarize._a2a._agents.agents.internal', 'HTTPS'],
    ]) {
      const nodata = await kdig(port, name!, type!);
      expect(status(nodata), `${name} ${type}`).toBe('NOERROR');
      expect(section(nodata, 'ANSWER')).toEqual([]);
      expect(section(nodata, 'AUTHORITY')[0]!.slice(3, 4)).toEqual(['SOA']);
    }
  });

  it('refuses names outside the zone', async () => {
    for (const name of ['example.com', 'internal', 'agents.internal.example']) {
      const out = await dig(port, name, 'A');
      expect(status(out), name).toBe('REFUSED');
      expect(flags(out)).not.toContain('aa');
    }
  });

  it('matches names case-insensitively and echoes the question as asked', async () => {
    const out = await dig(port, '_WRITING._Tcp.AGENTS.internal', 'SRV');
    expect(out).toContain(';_WRITING._Tcp.AGENTS.internal.\tIN\tSRV');
    expect(section(out, 'ANSWER')[0]!.slice(4)).toEqual([
      '10',
      expect.stringMatching(/^[1-9][0-9]*$/),
      '8001',
      `${summarizer}.agents.internal.`,
    ]);
  });

  it('sets TC for 60 instances over UDP; dig and kdig retry over TCP and get all 60', async () => {
    const udpOnly = await dig(port, '+ignore', '_crunch._a2a._agents.agents.internal', 'SVCB');
    expect(flags(udpOnly)).toContain('tc');
    expect(section(udpOnly, 'ANSWER')).toEqual([]);
    const out = await dig(port, '_crunch._a2a._agents.agents.internal', 'SVCB');
    expect(out).toContain('Truncated, retrying in TCP mode');
    expect(out).toMatch(/SERVER: 127\.0\.0\.1#\d+\(127\.0\.0\.1\) \(TCP\)/);
    const answer = section(out, 'ANSWER');
    expect(answer).toHaveLength(60);
    expect(new Set(answer.map((rr) => rr[5]))).toEqual(
      new Set(crunchers.map((id) => `${id}.agents.internal.`)),
    );
    const srv = await kdig(port, '_crunch._tcp.agents.internal', 'SRV');
    expect(section(srv, 'ANSWER')).toHaveLength(60);
    expect(srv).toMatch(/\(TCP\)/);
  });
});
