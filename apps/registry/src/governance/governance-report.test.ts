import { Declaration, GovernanceReport } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { summarizerDeclaration } from '../testing/fixtures.js';
import { GOVERNANCE_EXPECTED, GOVERNANCE_FIXTURE, GOVERNANCE_NOW_MS } from '../testing/governance-fixture.js';
import { call } from '../testing/http.js';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.js';
import { buildGovernanceReport } from './governance-report.js';
import type { HistoryBucket } from './route-history.js';

let t: TestRegistry | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

async function withFixture(): Promise<TestRegistry> {
  t = await startTestRegistry({ clock: new ManualClock(1_000, { wallMs: GOVERNANCE_NOW_MS }) });
  const written = await t.store.commit({ puts: GOVERNANCE_FIXTURE });
  expect(written.ok).toBe(true);
  return t;
}

describe('GET /v1/reports/governance on a fixture history (embedded store)', () => {
  it('is exactly the hand-computed report (7d, the default window)', async () => {
    const { registry } = await withFixture();
    for (const path of ['/v1/reports/governance?window=7d', '/v1/reports/governance']) {
      const reply = await call(registry.app, 'GET', path);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toEqual(GOVERNANCE_EXPECTED);
      expect(GovernanceReport.parse(reply.body)).toEqual(GOVERNANCE_EXPECTED);
    }
  });

  it('narrows to the window: 1h is the current hour only, 24h has an hourly series', async () => {
    const { registry } = await withFixture();
    const hour = (await call(registry.app, 'GET', '/v1/reports/governance?window=1h'))
      .body as GovernanceReport;
    expect(hour.from).toBe('2026-03-10T12:00:00.000Z');
    expect(hour.capabilities).toEqual([
      {
        capability: 'summarize',
        routes: 5,
        calls: 5,
        hits: 5,
        fallbacks: 0,
        failures: 0,
        hit_rate: 1,
        fallback_rate: 0,
        flags: [],
        trend: null,
        series: [
          {
            from: '2026-03-10T12:00:00.000Z',
            to: '2026-03-10T13:00:00.000Z',
            routes: 5,
            calls: 5,
            hits: 5,
            fallbacks: 0,
            failures: 0,
            hit_rate: 1,
            fallback_rate: 0,
          },
        ],
      },
    ]);
    // Conflict reports are daily: a window inside one day sees that day's report only (none here).
    expect(hour.conflicts).toEqual([]);
    expect(hour.declaration_changes).toEqual([]);

    const day = (await call(registry.app, 'GET', '/v1/reports/governance?window=24h'))
      .body as GovernanceReport;
    const summarize = day.capabilities.find((c) => c.capability === 'summarize')!;
    expect(summarize.series).toHaveLength(24);
    expect(summarize.series[7]).toMatchObject({ from: '2026-03-09T20:00:00.000Z', calls: 20, hits: 10 });
    expect(summarize).toMatchObject({ calls: 25, hits: 15, fallbacks: 8 });
    expect(summarize.trend).toMatchObject({
      earlier: { from: '2026-03-09T13:00:00.000Z', to: '2026-03-10T01:00:00.000Z', calls: 20 },
      later: { from: '2026-03-10T01:00:00.000Z', to: '2026-03-10T13:00:00.000Z', calls: 5 },
      hit_rate_change: 0.5,
      fallback_rate_change: -0.4,
    });
    expect(day.declaration_changes.map((c) => `${c.agent_name}@${c.version}`)).toEqual(['sum-a@3']);
  });

  it('refuses a bad or too long window with 400 VALIDATION_FAILED, and unknown parameters', async () => {
    const { registry } = await withFixture();
    for (const query of [
      'window=abc',
      'window=0h',
      'window=7',
      'window=1w',
      'window=90m',
      'window=1.5d',
      'window=',
      'window=31d',
      'window=745h',
      'since=2026-01-01',
    ]) {
      const reply = await call(registry.app, 'GET', `/v1/reports/governance?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body.code, query).toBe('VALIDATION_FAILED');
    }
    const long = await call(registry.app, 'GET', '/v1/reports/governance?window=31d');
    expect(long.body.message).toContain('retention');
    expect(long.body.data).toMatchObject({ max_window_ms: 30 * 86_400_000 });
    expect((await call(registry.app, 'GET', '/v1/reports/governance?window=30d')).status).toBe(200);
    expect((await call(registry.app, 'GET', '/v1/reports/governance?window=720h')).status).toBe(200);
  });

  it('takes its longest window from control_plane.governance.retention', async () => {
    t = await startTestRegistry({
      config: { control_plane: { governance: { retention: '2d' } } },
      clock: new ManualClock(1_000, { wallMs: GOVERNANCE_NOW_MS }),
    });
    expect((await call(t.registry.app, 'GET', '/v1/reports/governance?window=48h')).status).toBe(200);
    const refused = await call(t.registry.app, 'GET', '/v1/reports/governance?window=3d');
    expect(refused).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });
});

describe('buildGovernanceReport', () => {
  const bucket = (hour: string, capability: string, calls: number, hits: number): HistoryBucket => ({
    hourStartMs: Date.parse(hour),
    capability,
    writer: 'w',
    routes: calls,
    calls,
    hits,
    fallbacks: calls - hits,
    failures: 0,
  });
  const view = {
    capability: 'summarize',
    domain: 'text_processing',
    agents: ['a', 'b'],
    priority: 80,
    since: '2026-03-10T09:00:00.000Z',
  };

  it('marks a conflict that is live now, keeping its earliest sighting and the days that reported it', () => {
    const report = buildGovernanceReport({
      window: '2d',
      windowMs: 48 * 3_600_000,
      nowMs: Date.parse('2026-03-10T12:30:00Z'),
      retentionMs: 30 * 86_400_000,
      buckets: [],
      conflictReports: [
        { date: '2026-03-09', generated_at: '', conflicts: [{ ...view, since: '2026-03-09T07:00:00.000Z' }] },
      ],
      liveConflicts: [
        { ...view, instances: ['a-1', 'b-1'] },
        { ...view, agents: ['c', 'd'] },
      ],
      history: [],
      liveVersions: new Map(),
      verifyAfterCalls: 20,
    });
    expect(report.conflicts).toEqual([
      {
        ...view,
        since: '2026-03-09T07:00:00.000Z',
        instances: ['a-1', 'b-1'],
        days: ['2026-03-09'],
        live: true,
      },
      { ...view, agents: ['c', 'd'], days: [], live: true },
    ]);
  });

  it('lists unverified versions live ones first, then newest first, with their agent’s newest marked', () => {
    const entry = (agent: string, version: string, at: string, verified = false) => ({
      agent_name: agent,
      version,
      change_reason: version === '1' ? null : `to ${version}`,
      recorded_at: at,
      changed_by: null,
      declaration: Declaration.parse(summarizerDeclaration({ agent_name: agent, version })),
      verified,
      verified_at: null,
      verified_by: null,
      verified_reason: null,
      successful_calls: Number(version),
    });
    const report = buildGovernanceReport({
      window: '1d',
      windowMs: 24 * 3_600_000,
      nowMs: Date.parse('2026-03-10T12:30:00Z'),
      retentionMs: 30 * 86_400_000,
      buckets: [],
      conflictReports: [],
      liveConflicts: [],
      history: [
        entry('sum-a', '1', '2026-03-01T00:00:00.000Z'),
        entry('sum-a', '2', '2026-03-10T01:00:00.000Z', true),
        entry('sum-a', '3', '2026-03-10T02:00:00.000Z'),
        entry('sum-b', '1', '2026-03-09T00:00:00.000Z'),
      ],
      liveVersions: new Map([
        ['sum-a/1', 2],
        ['sum-a/2', 1],
      ]),
      verifyAfterCalls: 0,
    });
    expect(
      report.unverified_versions.map((v) => [v.agent_name, v.version, v.live_instances, v.newest]),
    ).toEqual([
      ['sum-a', '1', 2, false],
      ['sum-a', '3', 0, true],
      ['sum-b', '1', 0, true],
    ]);
    expect(report.verify_after_calls).toBe(0);
    expect(report.declaration_changes.map((c) => [c.version, c.previous_version, c.verified])).toEqual([
      ['2', '1', true],
      ['3', '2', false],
    ]);
  });

  it('flags a capability under the hit-rate threshold only past the minimum of calls', () => {
    const report = buildGovernanceReport({
      window: '2h',
      windowMs: 2 * 3_600_000,
      nowMs: Date.parse('2026-03-10T12:30:00Z'),
      retentionMs: 30 * 86_400_000,
      buckets: [
        bucket('2026-03-10T11:00:00Z', 'busy', 20, 13),
        bucket('2026-03-10T12:00:00Z', 'quiet', 19, 0),
        bucket('2026-03-10T10:00:00Z', 'busy', 50, 0),
      ],
      conflictReports: [],
      liveConflicts: [],
      history: [],
      liveVersions: new Map(),
      verifyAfterCalls: 20,
    });
    expect(report.capabilities.map((c) => [c.capability, c.hit_rate, c.flags])).toEqual([
      ['busy', 0.65, ['hit_rate_low', 'fallback_rate_high']],
      ['quiet', 0, []],
    ]);
    expect(report.capabilities[0]!.trend).toMatchObject({ earlier: { calls: 20 }, later: { calls: 0 } });
  });
});
