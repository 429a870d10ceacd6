import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { buildAgentCard, CARD_PATH } from '../protocol/card.js';
import { Declaration } from '../protocol/declaration.js';
import { toDnsPacketAnswer } from '../svcb/index.js';
import {
  behaviours,
  closedPort,
  startFakeDns,
  startTestAgent,
  type TestAgent,
} from '../testing/test-agents.js';
import { ReachClient } from './reach-client.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function agent(output: string): Promise<TestAgent> {
  const started = await startTestAgent(behaviours.answer(output));
  closers.push(() => started.close());
  return started;
}

describe('DNS fallback when the registry is unreachable', () => {
  it('resolves candidates through SVCB _<op>._a2a._agents.<zone> and calls them', async () => {
    const a = await agent('from svcb');
    const dns = await startFakeDns({
      'UNKNOWN_64 _summarize._a2a._agents.agents.internal': {
        answers: [
          toDnsPacketAnswer({
            name: '_summarize._a2a._agents.agents.internal',
            ttl: 15,
            record: {
              priority: 1,
              target: 'summarizer-v2-3f9c.agents.internal.',
              params: { port: a.port, ipv4hint: ['127.0.0.1'] },
            },
          }),
        ],
      },
    });
    closers.push(dns.close);
    const reach = new ReachClient({
      registryUrl: `http://127.0.0.1:${await closedPort()}`,
      dns: { server: dns.server, zone: 'agents.internal' },
      outcomes: false,
    });
    closers.push(() => reach.close());
    const result = await reach.reach({ need: { operation: 'summarize' }, input: {} });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.output).toBe('from svcb');
    expect(result.value.route.source).toBe('dns');
    expect(result.value.results[0]).toMatchObject({
      instance_id: 'summarizer-v2-3f9c',
      agent_name: 'summarizer-v2',
    });
    expect(dns.seen).toEqual(['UNKNOWN_64 _summarize._a2a._agents.agents.internal']);
  });

  it('falls back to the role SRV, ordered by priority, with addresses from the additional section', async () => {
    const preferred = await agent('preferred');
    const backup = await agent('backup');
    const dns = await startFakeDns({
      'SRV _summarize._tcp.agents.internal': {
        answers: [
          {
            type: 'SRV',
            name: '_summarize._tcp.agents.internal',
            ttl: 15,
            data: { priority: 20, weight: 10, port: backup.port, target: 'backup-aaaa.agents.internal' },
          },
          {
            type: 'SRV',
            name: '_summarize._tcp.agents.internal',
            ttl: 15,
            data: {
              priority: 10,
              weight: 10,
              port: preferred.port,
              target: 'preferred-bbbb.agents.internal',
            },
          },
        ],
        additionals: [
          { type: 'A', name: 'backup-aaaa.agents.internal', ttl: 15, data: '127.0.0.1' },
          { type: 'A', name: 'preferred-bbbb.agents.internal', ttl: 15, data: '127.0.0.1' },
        ],
      },
    });
    closers.push(dns.close);
    const reach = new ReachClient({ dns: { server: dns.server }, outcomes: false });
    closers.push(() => reach.close());
    const routed = await reach.route({ operation: 'summarize' });
    expect(routed.ok && routed.value.targets.map((t) => t.instance_id)).toEqual([
      'preferred-bbbb',
      'backup-aaaa',
    ]);
    const result = await reach.reach({ need: { operation: 'summarize' }, input: {} });
    expect(result.ok && result.value.output).toBe('preferred');
    expect(dns.seen).toContain('SRV _summarize._tcp.agents.internal');
  });

  it('falls back last to _agent._tcp, keeping only the instances whose card lists the operation', async () => {
    const serveCard = async (operation: string, broken = false) => {
      const server = createServer((req, res) => {
        const port = (server.address() as AddressInfo).port;
        const declaration = Declaration.parse({
          agent_name: `${operation}-agent`,
          domain: 'text_processing',
          capabilities: { [operation]: {} },
        });
        const card = buildAgentCard(declaration, {
          host: '127.0.0.1',
          port,
          scheme: 'http',
          alpn: ['http/1.1'],
        });
        if (req.url !== CARD_PATH) return res.writeHead(404).end();
        res.setHeader('content-type', 'application/json');
        res.end(broken ? '{"name":' : JSON.stringify(card));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise((resolve) => server.close(() => resolve())));
      return (server.address() as AddressInfo).port;
    };
    const summarizer = await serveCard('summarize');
    const translator = await serveCard('translate');
    const broken = await serveCard('summarize', true);
    const srv = (target: string, port: number) => ({
      type: 'SRV' as const,
      name: '_agent._tcp.agents.internal',
      ttl: 15,
      data: { priority: 10, weight: 10, port, target },
    });
    const dns = await startFakeDns({
      'SRV _agent._tcp.agents.internal': {
        answers: [
          srv('translator-aaaa.agents.internal', translator),
          srv('summarizer-bbbb.agents.internal', summarizer),
          srv('broken-cccc.agents.internal', broken),
        ],
        additionals: ['translator-aaaa', 'summarizer-bbbb', 'broken-cccc'].map((id) => ({
          type: 'A' as const,
          name: `${id}.agents.internal`,
          ttl: 15,
          data: '127.0.0.1',
        })),
      },
    });
    closers.push(dns.close);
    const reach = new ReachClient({ dns: { server: dns.server }, outcomes: false });
    closers.push(() => reach.close());
    const routed = await reach.route({ operation: 'summarize' });
    expect(routed.ok && routed.value.targets.map((t) => [t.instance_id, t.endpoint.port])).toEqual([
      ['summarizer-bbbb', summarizer],
    ]);
    expect(dns.seen).toEqual([
      'UNKNOWN_64 _summarize._a2a._agents.agents.internal',
      'SRV _summarize._tcp.agents.internal',
      'SRV _agent._tcp.agents.internal',
    ]);
  });

  it('says UNAVAILABLE without DNS, and NO_CANDIDATES when DNS has none either', async () => {
    const registryUrl = `http://127.0.0.1:${await closedPort()}`;
    const bare = new ReachClient({ registryUrl, outcomes: false });
    closers.push(() => bare.close());
    const unavailable = await bare.reach({ need: { operation: 'summarize' }, input: {} });
    expect(!unavailable.ok && unavailable.error.code).toBe('UNAVAILABLE');
    const dns = await startFakeDns({});
    closers.push(dns.close);
    const withDns = new ReachClient({ registryUrl, dns: { server: dns.server }, outcomes: false });
    closers.push(() => withDns.close());
    const none = await withDns.reach({ need: { operation: 'summarize' }, input: {} });
    expect(!none.ok && none.error.code).toBe('NO_CANDIDATES');
  });
});
