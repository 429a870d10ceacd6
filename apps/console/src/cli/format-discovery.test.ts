import { describe, expect, it } from 'vitest';
import { formatDiscovery } from './format-runs.js';
import type { DiscoveryView } from './orchestrator-views.js';

type CapabilityView = DiscoveryView['capabilities'][string];
const cap = (capability: string, extra: Partial<CapabilityView>): CapabilityView => ({
  capability,
  source: 'svcb',
  available: true,
  reason: null,
  queries: [],
  candidates: [],
  failed: [],
  description: '',
  described_by: 'builtin',
  tags: [],
  examples: [],
  builtin: false,
  in_index: true,
  providers: [],
  ...extra,
});
const counters = (dns_queries: number): DiscoveryView['stats'] => ({
  dns_queries,
  dns_tcp_fallbacks: 0,
  card_fetches: 0,
  card_cache_hits: 0,
  card_negative_hits: 0,
  card_failures: 0,
  health_probes: 0,
});

describe('reach discovery', () => {
  it('shows each capability with its origin, description, providers and DNS source', () => {
    const out = formatDiscovery({
      zone: 'agents.internal',
      dns_server: '127.0.0.1:8053',
      discovered_at: '2026-12-01T00:00:00Z',
      duration_ms: 3,
      capabilities: {
        writing: cap('writing', {
          builtin: true,
          in_index: true,
          description: 'Write prose.',
          providers: ['writer-agent'],
        }),
        word_count: cap('word_count', {
          builtin: false,
          in_index: true,
          description: 'Counts words.',
          providers: ['word-counter'],
        }),
        gone_cap: cap('gone_cap', {
          builtin: false,
          in_index: false,
          available: false,
          source: 'none',
          reason: 'no_dns_record',
          description: 'Left DNS.',
          providers: [],
        }),
      },
      strategy: 'priority_then_weighted_random',
      stats: counters(4),
      totals: counters(4),
    });
    expect(out).toMatch(/^writing\s+builtin\s+Write prose\.\s+writer-agent\s+svcb\s+yes/m);
    expect(out).toMatch(/^word_count\s+live\s+Counts words\.\s+word-counter\s+svcb\s+yes/m);
    expect(out).toMatch(/^gone_cap\s+gone\s+Left DNS\.\s+-\s+none\s+no\s+no_dns_record/m);
  });
});
