import type { GovernanceReport } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { json, run } from '../testing/cli-harness.js';

const stretch = {
  routes: 0,
  calls: 0,
  hits: 0,
  fallbacks: 0,
  failures: 0,
  hit_rate: null,
  fallback_rate: null,
};

const REPORT: GovernanceReport = {
  window: '7d',
  from: '2026-03-03T13:00:00.000Z',
  to: '2026-03-10T13:00:00.000Z',
  generated_at: '2026-03-10T12:30:00.000Z',
  retention_ms: 2_592_000_000,
  thresholds: { hit_rate_min: 0.7, fallback_rate_max: 0.1, min_calls: 20 },
  totals: {
    routes: 79,
    calls: 78,
    hits: 63,
    fallbacks: 12,
    failures: 3,
    hit_rate: 0.8077,
    fallback_rate: 0.1538,
  },
  capabilities: [
    {
      capability: 'summarize',
      routes: 75,
      calls: 75,
      hits: 60,
      fallbacks: 12,
      failures: 3,
      hit_rate: 0.8,
      fallback_rate: 0.16,
      flags: ['fallback_rate_high'],
      trend: {
        earlier: { ...stretch, from: '2026-03-03T13:00:00.000Z', to: '2026-03-07T01:00:00.000Z' },
        later: { ...stretch, from: '2026-03-07T01:00:00.000Z', to: '2026-03-10T13:00:00.000Z' },
        hit_rate_change: -0.3,
        fallback_rate_change: 0.24,
      },
      series: [],
    },
    {
      capability: 'translate',
      routes: 4,
      calls: 3,
      hits: 3,
      fallbacks: 0,
      failures: 0,
      hit_rate: 1,
      fallback_rate: 0,
      flags: [],
      trend: null,
      series: [],
    },
  ],
  conflicts: [
    {
      capability: 'summarize',
      domain: 'text_processing',
      agents: ['sum-a', 'sum-b'],
      priority: 80,
      since: '2026-03-05T09:00:00.000Z',
      days: ['2026-03-05', '2026-03-06'],
      live: false,
    },
  ],
  declaration_changes: [
    {
      agent_name: 'sum-a',
      version: '2',
      previous_version: '1',
      change_reason: 'max_tokens 5000 → 8000',
      recorded_at: '2026-03-05T08:00:00.000Z',
      changed_by: 'text',
      verified: true,
    },
    {
      agent_name: 'trans-b',
      version: '1',
      previous_version: null,
      change_reason: null,
      recorded_at: '2026-03-06T09:00:00.000Z',
      changed_by: null,
      verified: false,
    },
  ],
  verify_after_calls: 20,
  unverified_versions: [
    {
      agent_name: 'trans-b',
      version: '1',
      recorded_at: '2026-03-06T09:00:00.000Z',
      change_reason: null,
      successful_calls: 2,
      live_instances: 1,
      newest: true,
    },
  ],
};

describe('reach report', () => {
  it('asks for the 7d report by default and prints routing, conflicts and declaration changes', async () => {
    const r = await run(['report'], { 'GET /v1/reports/governance': json(REPORT) });
    expect(r.code, r.err).toBe(0);
    expect(r.calls.map((c) => c.url)).toEqual(['http://registry.test:8701/v1/reports/governance?window=7d']);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('window:  7d: 2026-03-03T13:00:00.000Z → 2026-03-10T13:00:00.000Z');
    expect(lines[1]).toBe('calls:   78 (hit rate 80.8%, fallback rate 15.4%), 79 route queries');
    expect(r.out).toMatch(
      /^summarize\s+75\s+75\s+80\.0%\s+-30\.0 pp\s+16\.0%\s+\+24\.0 pp\s+3\s+fallback_rate_high$/m,
    );
    expect(r.out).toMatch(/^translate\s+4\s+3\s+100\.0%\s+–\s+0\.0%\s+–\s+0$/m);
    expect(r.out).toMatch(
      /^summarize\s+text_processing\s+80\s+sum-a, sum-b\s+2026-03-05T09:00:00\.000Z\s+gone\s+2026-03-05, 2026-03-06$/m,
    );
    expect(r.out).toContain('declaration changes (2)');
    expect(r.out).toMatch(
      /^2026-03-05T08:00:00\.000Z\s+sum-a\s+1 → 2\s+text\s+yes\s+max_tokens 5000 → 8000$/m,
    );
    expect(r.out).toMatch(
      /^2026-03-06T09:00:00\.000Z\s+trans-b\s+\(new\) → 1\s+-\s+no\s+\(no change reason\)$/m,
    );
    expect(r.out).toContain('unverified versions (1; verified after 20 successful calls or by an operator)');
    expect(r.out).toMatch(/^trans-b\s+1\s+2026-03-06T09:00:00\.000Z\s+2\/20\s+1\s+yes\s+-$/m);
  });

  it('passes --window and prints the API answer as is with --json', async () => {
    const r = await run(['report', '--window', '24h', '--json'], {
      'GET /v1/reports/governance?window=24h': json({ ...REPORT, window: '24h' }),
    });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ ...REPORT, window: '24h' });
  });

  it('says when the window had no traffic, conflicts or changes', async () => {
    const quiet = {
      ...REPORT,
      capabilities: [],
      conflicts: [],
      declaration_changes: [],
      unverified_versions: [],
    };
    const r = await run(['report', '--window', '1h'], {
      'GET /v1/reports/governance?window=1h': json(quiet),
    });
    expect(r.code).toBe(0);
    for (const text of [
      'no routes or calls in the window',
      'no conflicts',
      'no declaration changes',
      'every version is verified',
    ])
      expect(r.out).toContain(text);
  });

  it('refuses a bad --window before calling (exit 2) and reports the registry refusing a long one (exit 1)', async () => {
    for (const window of ['1w', '0d', '7', '90m', '']) {
      const r = await run(['report', '--window', window]);
      expect(r.code, window).toBe(2);
      expect(r.err, window).toContain('--window must be <n>h or <n>d');
      expect(r.err).toContain('usage: reach report [--window 7d]');
      expect(r.calls).toHaveLength(0);
    }
    const long = await run(['report', '--window', '90d'], {
      'GET /v1/reports/governance?window=90d': json(
        {
          code: 'VALIDATION_FAILED',
          message: "window 90d is longer than the route history's retention (720h)",
        },
        400,
      ),
    });
    expect(long.code).toBe(1);
    expect(long.err).toBe(
      "VALIDATION_FAILED: window 90d is longer than the route history's retention (720h)",
    );
    const down = await run(['report']);
    expect(down.code).toBe(1);
    expect(down.err).toMatch(/^UNAVAILABLE: cannot reach the registry/);
  });
});
