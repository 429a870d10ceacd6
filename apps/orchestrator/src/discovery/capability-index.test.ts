import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Clock } from '@agent-reach/sdk/clock';
import { UdpDnsClient } from '@agent-reach/sdk/dns';
import { type AgentCard, buildAgentCard, Declaration } from '@agent-reach/sdk/protocol';
import { withAgentCard } from '@agent-reach/sdk/svcb';
import { FakeDnsServer, type FakeRecord } from '@agent-reach/sdk/testing';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CapabilityIndex } from './capability-index.js';
import { cardDigest } from './card-fetcher.js';
import { httpHealthCheck } from './health-probe.js';

const ZONE = 'agents.internal';

interface FakeAgent {
  name: string;
  port: number;
  sha: string;
  health: 'ok' | 'draining' | 'hang';
  server: Server;
}

async function startAgent(
  name: string,
  serves: string[],
  health: FakeAgent['health'] = 'ok',
  capabilities: Record<string, unknown> = { work: { serves } },
  editCard: (card: AgentCard) => unknown = (card) => card,
): Promise<FakeAgent> {
  const agent = { name, port: 0, sha: '', health, server: createServer() } as FakeAgent;
  await new Promise<void>((r) => agent.server.listen(0, '127.0.0.1', r));
  agent.port = (agent.server.address() as AddressInfo).port;
  const decl = Declaration.parse({ agent_name: name, domain: 'demo', capabilities });
  const bytes = Buffer.from(
    JSON.stringify(
      editCard(
        buildAgentCard(decl, { host: '127.0.0.1', port: agent.port, scheme: 'http', alpn: ['http/1.1'] }),
      ),
    ),
  );
  agent.sha = cardDigest(bytes);
  agent.server.on('request', (req, res) => {
    if (req.url === '/.well-known/agent-card.json') return res.end(bytes);
    if (req.url === '/health') {
      if (agent.health === 'hang') return;
      return res.end(JSON.stringify({ status: agent.health }));
    }
    res.statusCode = 404;
    res.end();
  });
  return agent;
}

function svcb(cap: string, a: FakeAgent, sha = a.sha, priority = 1): FakeRecord {
  const url = `http://127.0.0.1:${a.port}/.well-known/agent-card.json`;
  return {
    type: 'SVCB',
    name: `_${cap}._a2a._agents.${ZONE}`,
    record: {
      priority,
      target: `${a.name}.${ZONE}.`,
      params: withAgentCard(
        { mandatory: ['alpn', 'port'], alpn: ['http/1.1'], port: a.port, ipv4hint: ['127.0.0.1'] },
        { url, sha256: sha, bap: ['a2a/1'] },
      ),
    },
  };
}

const srv = (owner: string, a: FakeAgent, priority = 10, weight = 10): FakeRecord => ({
  type: 'SRV',
  name: owner,
  priority,
  weight,
  port: a.port,
  target: `${a.name}.${ZONE}`,
});
const indexTxt = (...caps: string[]): FakeRecord => ({
  type: 'TXT',
  name: `_index._agents.${ZONE}`,
  strings: [`agents=${caps.map((c) => `${c}:a2a`).join(',')}`],
});
const aRec = (a: FakeAgent): FakeRecord => ({ type: 'A', name: `${a.name}.${ZONE}`, address: '127.0.0.1' });

describe('CapabilityIndex over DNS', () => {
  const dns = new FakeDnsServer();
  const agents: FakeAgent[] = [];
  beforeAll(() => dns.start());
  afterAll(() => dns.stop());
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => new Promise((r) => a.server.close(r))));
    dns.records = [];
    dns.withAdditionals = true;
  });

  function index(
    catalog: string[],
    healthTimeoutMs = 300,
    random?: () => number,
    clock?: Pick<Clock, 'now'>,
  ) {
    return new CapabilityIndex({
      random,
      ...(clock ? { clock, catalogRetentionMs: 60_000 } : {}),
      dns: new UdpDnsClient({ host: '127.0.0.1', port: dns.port }),
      zone: ZONE,
      dnsServer: `127.0.0.1:${dns.port}`,
      catalog,
      checkHealth: httpHealthCheck(healthTimeoutMs),
    });
  }

  async function agent(
    name: string,
    serves: string[],
    health: FakeAgent['health'] = 'ok',
    capabilities?: Record<string, unknown>,
  ) {
    const a = await startAgent(name, serves, health, capabilities);
    agents.push(a);
    return a;
  }

  it('uses SVCB first and records the source', async () => {
    const w = await agent('writer-1', ['writing']);
    dns.records = [svcb('writing', w), srv(`_writing._tcp.${ZONE}`, w), aRec(w)];
    const d = await index(['writing']).discover();
    const view = d.view.capabilities.writing!;
    expect(view).toMatchObject({ source: 'svcb', available: true, reason: null });
    expect(view.candidates.map((c) => c.endpoint)).toEqual([`127.0.0.1:${w.port}`]);
    // The DNS index, then the capability's SVCB.
    expect(d.view.stats.dns_queries).toBe(2);
  });

  it("reuses DNS answers only for a run's discovery, and a fresh discovery refreshes them", async () => {
    const w = await agent('writer-1', ['writing']);
    dns.records = [svcb('writing', w), aRec(w), indexTxt('writing')];
    const idx = index(['writing']);
    expect((await idx.discover()).view.stats.dns_queries).toBe(2);
    const reused = await idx.discover(undefined, { reuseDns: true });
    expect(reused.view.stats.dns_queries).toBe(0);
    expect(reused.view.capabilities.writing!.candidates).toHaveLength(1);
    const w2 = await agent('writer-2', ['writing']);
    dns.records = [svcb('writing', w), svcb('writing', w2), aRec(w), aRec(w2), indexTxt('writing')];
    expect(
      (await idx.discover(undefined, { reuseDns: true })).view.capabilities.writing!.candidates,
    ).toHaveLength(1);
    expect((await idx.discover()).view.capabilities.writing!.candidates).toHaveLength(2);
    expect(
      (await idx.discover(undefined, { reuseDns: true })).view.capabilities.writing!.candidates,
    ).toHaveLength(2);
  });

  it('falls back to the role SRV, then to the generic SRV filtered by cards', async () => {
    const r = await agent('researcher', ['research']);
    const v = await agent('verifier', ['security_review', 'validation']);
    dns.records = [
      srv(`_research._tcp.${ZONE}`, r),
      srv(`_agent._tcp.${ZONE}`, r),
      srv(`_agent._tcp.${ZONE}`, v),
      aRec(r),
      aRec(v),
    ];
    const d = await index(['research', 'validation', 'security_review', 'synthesis']).discover();
    expect(d.view.capabilities.research).toMatchObject({ source: 'role_srv', available: true });
    expect(d.view.capabilities.validation).toMatchObject({ source: 'generic_srv_filtered', available: true });
    expect(d.view.capabilities.validation!.candidates.map((c) => c.agent_name)).toEqual(['verifier']);
    expect(d.view.capabilities.synthesis).toMatchObject({
      source: 'none',
      available: false,
      reason: 'no_dns_record',
    });
    // The generic name is asked once per pass however many capabilities fall back to it.
    expect(dns.asked.udp.filter((q) => q.startsWith('_agent._tcp')).length).toBe(1);
  });

  it('rejects a card whose sha256 does not match cap-sha256 (key65401)', async () => {
    const good = await agent('writer-good', ['writing']);
    const bad = await agent('writer-bad', ['writing']);
    dns.records = [svcb('writing', good), svcb('writing', bad, good.sha)];
    const view = (await index(['writing']).discover()).view.capabilities.writing!;
    expect(view.candidates.map((c) => c.agent_name)).toEqual(['writer-good']);
    expect(view.failed).toMatchObject([
      { instance: 'writer-bad', stage: 'card', reason: 'card_sha_mismatch' },
    ]);
  });

  it('drops unhealthy candidates and uses unverified ones only when nothing else is left', async () => {
    const ok = await agent('planner-ok', ['planning']);
    const draining = await agent('planner-draining', ['planning'], 'draining');
    const hanging = await agent('planner-hang', ['planning'], 'hang');
    dns.records = [svcb('planning', ok), svcb('planning', draining), svcb('planning', hanging)];
    const idx = index(['planning']);
    const first = (await idx.discover()).view.capabilities.planning!;
    expect(first.candidates.map((c) => c.agent_name)).toEqual(['planner-ok']);
    expect(first.failed.map((f) => f.reason)).toEqual(['unhealthy']);

    dns.records = [svcb('planning', draining), svcb('planning', hanging)];
    const second = (await index(['planning']).discover()).view.capabilities.planning!;
    expect(second).toMatchObject({ available: true, reason: 'unverified_only' });
    expect(second.candidates.map((c) => [c.agent_name, c.health])).toEqual([['planner-hang', 'unverified']]);
  });

  it('reports a capability whose instances are all unreachable', async () => {
    const gone = await agent('coder', ['implementation']);
    dns.records = [svcb('implementation', gone)];
    await new Promise((r) => gone.server.close(r));
    agents.splice(agents.indexOf(gone), 1);
    const view = (await index(['implementation']).discover()).view.capabilities.implementation!;
    expect(view).toMatchObject({ available: false, reason: 'all_cards_unreachable' });
    expect(view.failed[0]).toMatchObject({ stage: 'card', reason: 'card_unreachable' });
  });

  it('looks up A records when the SRV answer carries none', async () => {
    const s = await agent('synth', ['synthesis']);
    dns.withAdditionals = false;
    dns.records = [srv(`_synthesis._tcp.${ZONE}`, s), aRec(s)];
    const d = await index(['synthesis']).discover();
    expect(d.view.capabilities.synthesis!.available).toBe(true);
    expect(d.view.stats.dns_queries).toBe(4);
  });

  it('gives up on a capability at the first name a silent DNS server does not answer', async () => {
    const idx = new CapabilityIndex({
      dns: new UdpDnsClient({ host: '127.0.0.1', port: 9, timeoutMs: 100, udpTries: 1 }),
      zone: ZONE,
      dnsServer: '127.0.0.1:9',
      catalog: ['writing'],
    });
    const view = (await idx.discover()).view.capabilities.writing!;
    expect(view).toMatchObject({ source: 'none', available: false, reason: 'dns_unavailable' });
    expect(view.queries).toEqual([`_writing._a2a._agents.${ZONE} SVCB`]);
  });

  it('binds a primary and at most three alternates', async () => {
    const many = await Promise.all([1, 2, 3, 4, 5].map((i) => agent(`writer-${i}`, ['writing'])));
    dns.records = many.map((a) => svcb('writing', a));
    const idx = index(['writing', 'synthesis']);
    const d = await idx.discover();
    const binding = idx.bind(d, 'writing');
    expect(binding.ok).toBe(true);
    if (binding.ok) {
      expect(binding.alternates.length).toBe(3);
      expect(new Set([binding.primary, ...binding.alternates].map((c) => c.instance)).size).toBe(4);
      expect(binding.selection).toMatchObject({
        strategy: 'priority_then_weighted_random',
        pool: 5,
        source: 'svcb',
      });
    }
    expect(idx.bind(d, 'synthesis')).toMatchObject({ ok: false, reason: 'no_dns_record' });
  });

  it("a run's discovery verifies candidates only until a primary and three alternates are healthy", async () => {
    const many = await Promise.all(Array.from({ length: 10 }, (_, i) => agent(`writer-${i}`, ['writing'])));
    dns.records = many.map((a) => svcb('writing', a));
    const idx = index(['writing']);
    const run = await idx.discover(undefined, { enoughToBind: true });
    expect(run.view.capabilities.writing).toMatchObject({ available: true, reason: null, unchecked: 6 });
    expect(run.view.capabilities.writing!.candidates).toHaveLength(4);
    expect(run.view.stats).toMatchObject({ card_fetches: 4, health_probes: 4 });
    const binding = idx.bind(run, 'writing');
    expect(binding.ok && [binding.primary, ...binding.alternates].length).toBe(4);
    // The view checks every replica; the four already verified come from the caches.
    const view = await idx.discover();
    expect(view.view.capabilities.writing!.candidates).toHaveLength(10);
    expect(view.view.capabilities.writing!.unchecked).toBeUndefined();
    expect(view.view.stats).toMatchObject({ card_fetches: 6, card_cache_hits: 4, health_probes: 6 });
  });

  it("a run's discovery checks the rest when too few of the first are healthy, unverified last", async () => {
    const names = ['draining-a', 'hang', 'ok-1', 'ok-2', 'ok-3', 'ok-4', 'ok-5'];
    const started = await Promise.all(
      names.map((n) =>
        agent(n, ['planning'], n === 'hang' ? 'hang' : n.startsWith('ok') ? 'ok' : 'draining'),
      ),
    );
    dns.records = started.map((a) => svcb('planning', a));
    // random() = 0 keeps DNS order: the first round is draining-a, hang, ok-1, ok-2.
    const first = await index(['planning'], 300, () => 0).discover(undefined, { enoughToBind: true });
    const view = first.view.capabilities.planning!;
    expect(view.candidates.map((c) => c.agent_name)).toEqual(['ok-1', 'ok-2', 'ok-3', 'ok-4', 'ok-5']);
    expect(view.failed.map((f) => [f.instance, f.reason])).toEqual([['draining-a', 'unhealthy']]);
    expect(view.unchecked).toBeUndefined();

    dns.records = started.slice(0, 2).map((a) => svcb('planning', a));
    const none = await index(['planning'], 300, () => 0).discover(undefined, { enoughToBind: true });
    expect(none.view.capabilities.planning).toMatchObject({ available: true, reason: 'unverified_only' });
    expect(none.view.capabilities.planning!.candidates.map((c) => c.agent_name)).toEqual(['hang']);
  });

  it('V2: DNS queries per discovery are the same for 1, 10 and 50 replicas', async () => {
    const caps = ['planning', 'research', 'writing'];
    const counts: number[] = [];
    for (const replicas of [1, 10, 50]) {
      const started = await Promise.all(
        Array.from({ length: replicas }, (_, i) => agent(`multi-${replicas}-${i}`, caps)),
      );
      dns.records = caps.flatMap((cap) => started.map((a) => svcb(cap, a)));
      // Generous probe timeout: 50 agents answer at once on a shared machine.
      const d = await index(caps, 5000).discover();
      for (const cap of caps) expect(d.view.capabilities[cap]!.candidates.length).toBe(replicas);
      counts.push(d.view.stats.dns_queries);
      // Each replica's card is fetched once although it serves three capabilities.
      expect(d.view.stats.card_fetches).toBe(replicas);
      await Promise.all(agents.splice(0).map((a) => new Promise((r) => a.server.close(r))));
    }
    // One per capability plus the DNS index.
    expect(counts).toEqual([4, 4, 4]);
  });

  describe('the live catalog', () => {
    const wordCount = {
      word_count: {
        description: 'Counts the words of a text.',
        tags: ['word count', '字数'],
        examples: ['How many words are in this text?', '统计这段文字有多少个字'],
      },
    };

    it('adds every capability the DNS index lists, described by its card skills', async () => {
      const w = await agent('writer-1', ['writing']);
      const c = await agent('word-counter', [], 'ok', wordCount);
      dns.records = [
        svcb('writing', w),
        svcb('word_count', c),
        aRec(w),
        aRec(c),
        indexTxt('word_count', 'writing'),
      ];
      const d = await index(['writing']).discover();
      expect(Object.keys(d.view.capabilities)).toEqual(['writing', 'word_count']);
      expect(d.view.index).toMatchObject({ ok: true, capabilities: ['word_count', 'writing'] });
      expect(d.view.capabilities.word_count).toMatchObject({
        available: true,
        builtin: false,
        in_index: true,
        providers: ['word-counter'],
        description: 'Counts the words of a text.',
        described_by: 'card',
        tags: ['word count', '字数'],
        examples: ['How many words are in this text?', '统计这段文字有多少个字'],
      });
      // A built-in keeps its own description; the card adds nothing but the skill's extra tags.
      expect(d.view.capabilities.writing).toMatchObject({ described_by: 'builtin', builtin: true });
      expect(d.catalog.find((x) => x.id === 'word_count')).toMatchObject({ builtin: false, coding: false });
    });

    it('keeps a capability that left the index as unavailable for the retention time, then forgets it', async () => {
      const c = await agent('word-counter', [], 'ok', wordCount);
      let now = 1000;
      const clock: Pick<Clock, 'now'> = { now: () => now };
      const idx = index([], 300, undefined, clock);
      dns.records = [svcb('word_count', c), aRec(c), indexTxt('word_count')];
      expect((await idx.discover()).view.capabilities.word_count?.available).toBe(true);
      dns.records = [];
      now += 30_000;
      const gone = (await idx.discover()).view.capabilities.word_count!;
      expect(gone).toMatchObject({ available: false, in_index: false, reason: 'no_dns_record' });
      // What its card said is remembered, so planners still know what is missing.
      expect(gone).toMatchObject({ description: 'Counts the words of a text.', described_by: 'card' });
      now += 31_000;
      expect((await idx.discover()).view.capabilities.word_count).toBeUndefined();
    });

    it('ignores a candidate whose card has no skills, logging why once; the other capabilities stay plannable', async () => {
      const counter = await startAgent('counter-1', [], 'ok', {
        word_count: { description: 'Counts words' },
      });
      const blank = await startAgent('blank-1', [], 'ok', { mystery_op: {} }, (card) => ({
        ...card,
        skills: [],
      }));
      agents.push(counter, blank);
      dns.records = [
        svcb('word_count', counter),
        aRec(counter),
        svcb('mystery_op', blank),
        aRec(blank),
        indexTxt('word_count', 'mystery_op'),
      ];
      const warnings: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          warnings.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
          done();
        },
      });
      const idx = new CapabilityIndex({
        dns: new UdpDnsClient({ host: '127.0.0.1', port: dns.port }),
        zone: ZONE,
        dnsServer: `127.0.0.1:${dns.port}`,
        catalog: ['writing'],
        checkHealth: httpHealthCheck(300),
        logger: pino({ level: 'warn' }, sink),
      });
      for (let pass = 0; pass < 2; pass++) {
        const d = await idx.discover();
        expect(d.view.capabilities.mystery_op).toMatchObject({ available: false, providers: [] });
        expect(d.view.capabilities.mystery_op!.failed.map((f) => f.reason)).toEqual(['card_without_skills']);
        expect(d.candidates.get('mystery_op')).toEqual([]);
        expect(d.view.capabilities.word_count).toMatchObject({
          available: true,
          description: 'Counts words',
          providers: ['counter-1'],
        });
        expect(d.catalog.map((c) => c.id)).toContain('word_count');
      }
      // Logged once, not once per discovery pass.
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        capability: 'mystery_op',
        reason: 'card_without_skills',
        level: 40,
      });
      expect(warnings[0]!.msg).toContain('has no skill');
    });

    it('ignores index tokens that are not capability ids', async () => {
      dns.records = [
        { type: 'TXT', name: `_index._agents.${ZONE}`, strings: ['agents=Bad-ID:a2a,ok_one:a2a'] },
      ];
      const d = await index([]).discover();
      expect(Object.keys(d.view.capabilities)).toEqual(['ok_one']);
    });
  });
});
