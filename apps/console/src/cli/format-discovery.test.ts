import { describe, expect, it } from 'vitest';
import { formatDiscovery } from './format-runs.js';
import type { DiscoveryView } from './orchestrator-views.js';

const cap = (capability: string, extra: Partial<DiscoveryView['capabilities'][string]>) => ({
  capability,
  source: 'svcb',
  available: true,
  reason: null,
  candidates: [],
  failed: [],
  ...extra,
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
      stats: { dns_queries: 4 },
      totals: { dns_queries: 4 },
    });
    expect(out).toMatch(/^writing\s+builtin\s+Write prose\.\s+writer-agent\s+svcb\s+yes/m);
    expect(out).toMatch(/^word_count\s+live\s+Counts words\.\s+word-counter\s+svcb\s+yes/m);
    expect(out).toMatch(/^gone_cap\s+gone\s+Left DNS\.\s+-\s+none\s+no\s+no_dns_record/m);
  });
});
