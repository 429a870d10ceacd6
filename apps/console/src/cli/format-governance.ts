import type { CapabilityRates, GovernanceReport } from '@agent-reach/sdk/protocol';
import { formatPct } from '../shared/format.js';
import { formatFields, formatTable } from './table.js';

/** A rate change in percentage points, signed; `–` when a half of the window had no calls. */
function formatChange(change: number | null | undefined): string {
  if (change === null || change === undefined) return '–';
  const points = (change * 100).toFixed(1);
  return `${change > 0 ? '+' : ''}${points} pp`;
}

/** `reach report`: routing per capability, conflicts, declaration changes, unverified versions (seed article 6.3). */
export function formatGovernanceReport(report: GovernanceReport): string {
  const t = report.thresholds;
  const head = formatFields([
    ['window', `${report.window}: ${report.from} → ${report.to}`],
    [
      'calls',
      `${report.totals.calls} (hit rate ${formatPct(report.totals.hit_rate)}, fallback rate ${formatPct(report.totals.fallback_rate)}), ${report.totals.routes} route queries`,
    ],
    [
      'flagged',
      `hit rate under ${formatPct(t.hit_rate_min)} or fallback rate over ${formatPct(t.fallback_rate_max)}, from ${t.min_calls} calls`,
    ],
  ]);
  const routing = formatTable<CapabilityRates>(
    [
      { header: 'capability', cell: (c) => c.capability },
      { header: 'routes', cell: (c) => String(c.routes), align: 'right' },
      { header: 'calls', cell: (c) => String(c.calls), align: 'right' },
      { header: 'hit rate', cell: (c) => formatPct(c.hit_rate), align: 'right' },
      { header: 'trend', cell: (c) => formatChange(c.trend?.hit_rate_change), align: 'right' },
      { header: 'fallback', cell: (c) => formatPct(c.fallback_rate), align: 'right' },
      { header: 'trend', cell: (c) => formatChange(c.trend?.fallback_rate_change), align: 'right' },
      { header: 'failed', cell: (c) => String(c.failures), align: 'right' },
      { header: 'flags', cell: (c) => c.flags.join(', ') },
    ],
    report.capabilities,
    'no routes or calls in the window',
  );
  const conflicts = formatTable(
    [
      { header: 'capability', cell: (c) => c.capability },
      { header: 'domain', cell: (c) => c.domain },
      { header: 'priority', cell: (c) => String(c.priority), align: 'right' },
      { header: 'agents', cell: (c) => c.agents.join(', ') },
      { header: 'since', cell: (c) => c.since },
      { header: 'now', cell: (c) => (c.live ? 'live' : 'gone') },
      { header: 'reported', cell: (c) => c.days.join(', ') || '-' },
    ],
    report.conflicts,
    'no conflicts',
  );
  const changes = formatTable(
    [
      { header: 'recorded', cell: (c) => c.recorded_at },
      { header: 'agent', cell: (c) => c.agent_name },
      { header: 'version', cell: (c) => `${c.previous_version ?? '(new)'} → ${c.version}` },
      { header: 'by', cell: (c) => c.changed_by ?? '-' },
      { header: 'verified', cell: (c) => (c.verified ? 'yes' : 'no') },
      { header: 'reason', cell: (c) => c.change_reason ?? '(no change reason)', max: 70 },
    ],
    report.declaration_changes,
    'no declaration changes',
  );
  const unverified = formatTable(
    [
      { header: 'agent', cell: (v) => v.agent_name },
      { header: 'version', cell: (v) => v.version },
      { header: 'recorded', cell: (v) => v.recorded_at },
      {
        header: 'calls',
        cell: (v) =>
          report.verify_after_calls > 0
            ? `${v.successful_calls}/${report.verify_after_calls}`
            : String(v.successful_calls),
        align: 'right',
      },
      { header: 'live', cell: (v) => String(v.live_instances), align: 'right' },
      { header: 'newest', cell: (v) => (v.newest ? 'yes' : 'no') },
      { header: 'reason', cell: (v) => v.change_reason ?? '-', max: 50 },
    ],
    report.unverified_versions,
    'every version is verified',
  );
  const verifiedBy =
    report.verify_after_calls > 0
      ? `verified after ${report.verify_after_calls} successful calls or by an operator`
      : 'verified by an operator';
  return [
    head,
    '',
    'routing per capability (trend: later half of the window against the earlier half)',
    routing,
    '',
    `conflicts (${report.conflicts.length})`,
    conflicts,
    '',
    `declaration changes (${report.declaration_changes.length})`,
    changes,
    '',
    `unverified versions (${report.unverified_versions.length}; ${verifiedBy})`,
    unverified,
  ].join('\n');
}
