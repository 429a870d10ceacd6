import { waitFor } from '@agent-reach/registry/testing';
import { DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig, section } from '../dns/dns-tools.js';
import { type RegistryWithDns, startRegistryWithDns } from '../dns/registry-harness.js';
import { startCardServers } from './card-servers.js';
import { OrchestratorProcess } from './orchestrator-process.js';
import { OrchestratorApi } from './system.js';

describe('V2: discovery cost follows capabilities, not replicas', () => {
  let registry: RegistryWithDns;
  let orchestrator: OrchestratorProcess;
  let api: OrchestratorApi;
  beforeAll(async () => {
    registry = await startRegistryWithDns();
    orchestrator = await OrchestratorProcess.start({ dnsPort: registry.dns.port });
    api = new OrchestratorApi(orchestrator.url);
  }, 180_000);
  afterAll(async () => {
    await orchestrator?.stop();
    await registry?.stop();
  }, 60_000);

  it('asks DNS the same number of questions for 1, 10 and 50 replicas', async () => {
    const rounds: Array<{ replicas: number; dns_queries: number; card_fetches: number; tcp: number }> = [];
    for (const replicas of [1, 10, 50]) {
      const servers = await startCardServers(
        registry.registry.url,
        replicas,
        DEFAULT_CATALOG,
        `multi-${replicas}`,
      );
      try {
        // The responder thread applies registrations (and the last round's deregistrations) a moment
        // after their answers, in slices under load: discovery starts once DNS serves exactly these.
        await waitFor(`the responder to serve ${replicas} replicas of every capability`, async () => {
          for (const cap of DEFAULT_CATALOG) {
            const srv = await dig(registry.dns.port, '+tcp', `_${cap}._tcp.agents.internal`, 'SRV');
            if (section(srv, 'ANSWER').length !== replicas) return false;
          }
          return true;
        });
        const view = await api.discovery();
        for (const cap of DEFAULT_CATALOG) {
          expect(view.capabilities[cap], `${cap} × ${replicas}`).toMatchObject({
            source: 'svcb',
            available: true,
          });
          expect(view.capabilities[cap]!.candidates.length, `${cap} × ${replicas}`).toBe(replicas);
        }
        rounds.push({
          replicas,
          dns_queries: view.stats.dns_queries,
          card_fetches: view.stats.card_fetches,
          tcp: view.stats.dns_tcp_fallbacks,
        });
        // Warm: the cards are cached, so a second discovery fetches none.
        const warm = await api.discovery();
        // One question per capability, plus the DNS index.
        expect(warm.stats.dns_queries).toBe(DEFAULT_CATALOG.length + 1);
        expect(warm.stats.card_fetches).toBe(0);
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
    }
    expect(rounds.map((r) => r.dns_queries)).toEqual([8, 8, 8]);
    // One card per replica however many capabilities it serves.
    expect(rounds.map((r) => r.card_fetches)).toEqual([1, 10, 50]);
  });
});
