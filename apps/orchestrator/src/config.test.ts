import { describe, expect, it } from 'vitest';
import { loadOrchestratorConfig } from './config.js';

describe('loadOrchestratorConfig', () => {
  it('has the embedded defaults', () => {
    const c = loadOrchestratorConfig({});
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 8702 });
    expect(c.dnsServer).toEqual({ host: '127.0.0.1', port: 8053 });
    expect(c.zone).toBe('agents.internal');
    expect(c.databaseUrl).toBeNull();
    expect(c.pglitePath).toBe('data/orchestrator-traces');
    expect(c.catalog.map((e) => e.id)).toContain('synthesis');
    expect(c.staleAfterMs).toBe(300_000);
    expect(c.telemetry.tracesUrl).toBeNull();
    expect(c.call).toEqual({
      connectTimeoutMs: 300,
      ackTimeoutMs: 2000,
      executionTimeoutMs: 30_000,
      retryBudgetRatio: 0.2,
    });
  });

  it('takes DATABASE_URL, the DNS server and OTEL_* from the env record', () => {
    const c = loadOrchestratorConfig({
      DATABASE_URL: 'postgres://u@127.0.0.1:5432/db',
      REACH_DNS_SERVER: '127.0.0.1:5353',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
    });
    expect(c.databaseUrl).toBe('postgres://u@127.0.0.1:5432/db');
    expect(c.dnsServer.port).toBe(5353);
    expect(c.telemetry.tracesUrl).toBe('http://127.0.0.1:4318/v1/traces');
  });

  it.each([
    ['orchestrator:\n  database_url: mysql://x\n', 'orchestrator.database_url'],
    ['orchestrator:\n  stale_after: 1\n', 'orchestrator.stale_after'],
    ['orchestrator:\n  listen: nope\n', 'orchestrator.listen'],
    ['catalog:\n  - id: writing\n    description: dup\n', 'catalog.0.id'],
    [
      'orchestrator:\n  providers:\n    - {name: a, base_url: "http://x", model: m}\n    - {name: a, base_url: "http://y", model: m}\n',
      'orchestrator.providers.1.name',
    ],
  ])('stops on a bad value and names the key (%#)', (yaml, key) => {
    try {
      loadOrchestratorConfig({}, yaml);
      expect.unreachable();
    } catch (error) {
      expect((error as { code: string }).code).toBe('INVALID_CONFIG');
      expect((error as { data: { key: string } }).data.key).toBe(key);
    }
  });
});
