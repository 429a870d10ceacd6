import {
  type DailyConflictReport,
  Declaration,
  type GovernanceReport,
  type RouteCounts,
} from '@agent-reach/sdk/protocol';
import type { StoredHistory } from '../registration/history-entries.js';
import { conflictReportKey } from '../routing/conflict-report.js';
import { KEYS } from '../store/keys.js';
import type { PutOp } from '../store/store.js';
import { summarizerDeclaration } from './fixtures.js';

// A week of governance history written straight into a store, and the exact report it must give
// (hand-computed: docs/governance.md explains each figure). Shared by the embedded and etcd tests.

/** Wall-clock now of the fixture: the 7d window is [2026-03-03T13:00Z, 2026-03-10T13:00Z). */
export const GOVERNANCE_NOW_MS = Date.parse('2026-03-10T12:30:00.000Z');

const at = (iso: string) => Date.parse(iso);
const counts = (routes: number, calls: number, hits: number, fallbacks: number, failures: number) =>
  JSON.stringify({ routes, calls, hits, fallbacks, failures } satisfies RouteCounts);

const CONFLICT_A = {
  capability: 'summarize',
  domain: 'text_processing',
  agents: ['sum-a', 'sum-b'],
  priority: 80,
  since: '2026-03-05T09:00:00.000Z',
  overlap: { operation: 'summarize', output_formats: null, max_tokens: 5000 },
  instances: ['sum-a-1a2b', 'sum-b-3c4d'],
};
const CONFLICT_B = {
  capability: 'translate',
  domain: 'text_processing',
  agents: ['trans-a', 'trans-b'],
  priority: 50,
  since: '2026-03-06T10:00:00.000Z',
  overlap: { operation: 'translate', output_formats: ['text'], max_tokens: null },
  instances: ['trans-a-5e6f', 'trans-b-7a8b'],
};
const CONFLICT_OLD = { ...CONFLICT_A, agents: ['old-a', 'old-b'], since: '2026-03-01T01:00:00.000Z' };

const report = (date: string, conflicts: DailyConflictReport['conflicts']): PutOp => ({
  key: conflictReportKey(date),
  value: JSON.stringify({
    date,
    generated_at: `${date}T23:59:00.000Z`,
    conflicts,
  } satisfies DailyConflictReport),
});

function declared(
  agent: string,
  version: string,
  recordedAt: string,
  reason: string | null,
  by: string | null,
): PutOp {
  const entry: StoredHistory = {
    agent_name: agent,
    version,
    change_reason: reason,
    recorded_at: recordedAt,
    changed_by: by,
    declaration: Declaration.parse(
      summarizerDeclaration({ agent_name: agent, version, ...(reason ? { change_reason: reason } : {}) }),
    ),
  };
  return { key: KEYS.declaration(agent, at(recordedAt), version), value: JSON.stringify(entry) };
}

/** The stored history: route buckets of two replicas, daily conflict reports, declaration versions. */
export const GOVERNANCE_FIXTURE: PutOp[] = [
  // Earlier half of the window, both replicas in one hour.
  {
    key: KEYS.routeHistory(at('2026-03-04T10:00:00Z'), 'summarize', 'reg-a-111111'),
    value: counts(40, 40, 36, 3, 1),
  },
  {
    key: KEYS.routeHistory(at('2026-03-04T10:00:00Z'), 'summarize', 'reg-b-222222'),
    value: counts(10, 10, 9, 1, 0),
  },
  {
    key: KEYS.routeHistory(at('2026-03-06T08:00:00Z'), 'translate', 'reg-a-111111'),
    value: counts(4, 3, 3, 0, 0),
  },
  // Later half, the current hour included.
  {
    key: KEYS.routeHistory(at('2026-03-09T20:00:00Z'), 'summarize', 'reg-a-111111'),
    value: counts(20, 20, 10, 8, 2),
  },
  {
    key: KEYS.routeHistory(at('2026-03-10T12:00:00Z'), 'summarize', 'reg-b-222222'),
    value: counts(5, 5, 5, 0, 0),
  },
  // One hour before the window (same UTC day as its start) and a day before it: not counted.
  {
    key: KEYS.routeHistory(at('2026-03-03T12:00:00Z'), 'summarize', 'reg-a-111111'),
    value: counts(100, 100, 0, 0, 100),
  },
  {
    key: KEYS.routeHistory(at('2026-03-02T12:00:00Z'), 'summarize', 'reg-a-111111'),
    value: counts(100, 100, 0, 0, 100),
  },
  // An unreadable bucket is skipped.
  { key: KEYS.routeHistory(at('2026-03-08T08:00:00Z'), 'summarize', 'reg-c-333333'), value: 'not json' },
  report('2026-03-01', [CONFLICT_OLD]),
  report('2026-03-05', [CONFLICT_A]),
  report('2026-03-06', [CONFLICT_A, CONFLICT_B]),
  declared('sum-a', '1', '2026-02-20T00:00:00.000Z', null, 'text'),
  declared('sum-a', '2', '2026-03-05T08:00:00.000Z', 'max_tokens 5000 → 8000', 'text'),
  // The same version recorded by a second replica a moment later: shown once.
  declared('sum-a', '2', '2026-03-05T08:00:00.005Z', 'max_tokens 5000 → 8000', 'text'),
  declared('sum-a', '3', '2026-03-09T15:00:00.000Z', 'output formats json, text', null),
  declared('trans-b', '1', '2026-03-06T09:00:00.000Z', null, 'ops'),
  // sum-a 2 earned its verification; sum-a 3 and trans-b 1 are counting successful calls (two replicas).
  {
    key: KEYS.verification('sum-a', '2'),
    value: JSON.stringify({
      agent_name: 'sum-a',
      version: '2',
      verified_at: '2026-03-06T00:00:00.000Z',
      verified_by: 'calls',
      reason: 'served 20 successful calls',
    }),
  },
  { key: KEYS.versionCalls('sum-a', '3', 'reg-a'), value: '3' },
  { key: KEYS.versionCalls('sum-a', '3', 'reg-b'), value: '4' },
  { key: KEYS.versionCalls('trans-b', '1', 'reg-a'), value: '2' },
];

const none = { routes: 0, calls: 0, hits: 0, fallbacks: 0, failures: 0, hit_rate: null, fallback_rate: null };
const day = (from: string, to: string) => ({ from: `${from}T13:00:00.000Z`, to: `${to}T13:00:00.000Z` });

/** The report `GET /v1/reports/governance?window=7d` gives on the fixture at GOVERNANCE_NOW_MS (30d retention). */
export const GOVERNANCE_EXPECTED: GovernanceReport = {
  window: '7d',
  from: '2026-03-03T13:00:00.000Z',
  to: '2026-03-10T13:00:00.000Z',
  generated_at: '2026-03-10T12:30:00.000Z',
  retention_ms: 30 * 86_400_000,
  thresholds: { hit_rate_min: 0.7, fallback_rate_max: 0.1, min_calls: 20 },
  // 75 + 3 calls; hits 60 + 3; fallbacks 12.
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
        earlier: {
          from: '2026-03-03T13:00:00.000Z',
          to: '2026-03-07T01:00:00.000Z',
          routes: 50,
          calls: 50,
          hits: 45,
          fallbacks: 4,
          failures: 1,
          hit_rate: 0.9,
          fallback_rate: 0.08,
        },
        later: {
          from: '2026-03-07T01:00:00.000Z',
          to: '2026-03-10T13:00:00.000Z',
          routes: 25,
          calls: 25,
          hits: 15,
          fallbacks: 8,
          failures: 2,
          hit_rate: 0.6,
          fallback_rate: 0.32,
        },
        hit_rate_change: -0.3,
        fallback_rate_change: 0.24,
      },
      series: [
        {
          ...day('2026-03-03', '2026-03-04'),
          routes: 50,
          calls: 50,
          hits: 45,
          fallbacks: 4,
          failures: 1,
          hit_rate: 0.9,
          fallback_rate: 0.08,
        },
        { ...day('2026-03-04', '2026-03-05'), ...none },
        { ...day('2026-03-05', '2026-03-06'), ...none },
        { ...day('2026-03-06', '2026-03-07'), ...none },
        { ...day('2026-03-07', '2026-03-08'), ...none },
        { ...day('2026-03-08', '2026-03-09'), ...none },
        {
          ...day('2026-03-09', '2026-03-10'),
          routes: 25,
          calls: 25,
          hits: 15,
          fallbacks: 8,
          failures: 2,
          hit_rate: 0.6,
          fallback_rate: 0.32,
        },
      ],
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
      trend: {
        earlier: {
          from: '2026-03-03T13:00:00.000Z',
          to: '2026-03-07T01:00:00.000Z',
          routes: 4,
          calls: 3,
          hits: 3,
          fallbacks: 0,
          failures: 0,
          hit_rate: 1,
          fallback_rate: 0,
        },
        later: { from: '2026-03-07T01:00:00.000Z', to: '2026-03-10T13:00:00.000Z', ...none },
        hit_rate_change: null,
        fallback_rate_change: null,
      },
      series: [
        { ...day('2026-03-03', '2026-03-04'), ...none },
        { ...day('2026-03-04', '2026-03-05'), ...none },
        {
          ...day('2026-03-05', '2026-03-06'),
          routes: 4,
          calls: 3,
          hits: 3,
          fallbacks: 0,
          failures: 0,
          hit_rate: 1,
          fallback_rate: 0,
        },
        { ...day('2026-03-06', '2026-03-07'), ...none },
        { ...day('2026-03-07', '2026-03-08'), ...none },
        { ...day('2026-03-08', '2026-03-09'), ...none },
        { ...day('2026-03-09', '2026-03-10'), ...none },
      ],
    },
  ],
  conflicts: [
    { ...CONFLICT_A, days: ['2026-03-05', '2026-03-06'], live: false },
    { ...CONFLICT_B, days: ['2026-03-06'], live: false },
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
      changed_by: 'ops',
      verified: false,
    },
    {
      agent_name: 'sum-a',
      version: '3',
      previous_version: '2',
      change_reason: 'output formats json, text',
      recorded_at: '2026-03-09T15:00:00.000Z',
      changed_by: null,
      verified: false,
    },
  ],
  verify_after_calls: 20,
  // Every unverified version kept, whenever recorded (sum-a 1 predates the window); none is live here.
  unverified_versions: [
    {
      agent_name: 'sum-a',
      version: '3',
      recorded_at: '2026-03-09T15:00:00.000Z',
      change_reason: 'output formats json, text',
      successful_calls: 7,
      live_instances: 0,
      newest: true,
    },
    {
      agent_name: 'trans-b',
      version: '1',
      recorded_at: '2026-03-06T09:00:00.000Z',
      change_reason: null,
      successful_calls: 2,
      live_instances: 0,
      newest: true,
    },
    {
      agent_name: 'sum-a',
      version: '1',
      recorded_at: '2026-02-20T00:00:00.000Z',
      change_reason: null,
      successful_calls: 0,
      live_instances: 0,
      newest: false,
    },
  ],
};
