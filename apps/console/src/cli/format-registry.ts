import type {
  ConflictView,
  DeclarationHistoryEntry,
  ExternalAgentResponse,
  InstanceView,
  RouteResponse,
  RoutingStats,
} from '@agent-reach/sdk/protocol';
import { formatAgo, formatMs, formatPct } from '../shared/format.js';
import { formatFields, formatTable } from './table.js';

const load = (i: InstanceView) =>
  `${i.load.in_flight}/${i.load.capacity}${i.load.queue ? ` q${i.load.queue}` : ''}`;

/** `reach agents`. */
export function formatAgents(instances: InstanceView[], now: number): string {
  return formatTable(
    [
      { header: 'instance', cell: (i) => i.instance_id },
      { header: 'agent', cell: (i) => i.agent_name },
      { header: 'state', cell: (i) => i.state },
      { header: 'load', cell: load, align: 'right' },
      { header: 'heartbeat', cell: (i) => formatAgo(i.last_heartbeat_at, now) },
      { header: 'endpoint', cell: (i) => `${i.endpoint.host}:${i.endpoint.port}` },
      { header: 'version', cell: (i) => i.declaration_version },
      { header: 'capabilities', cell: (i) => i.capabilities.join(','), max: 50 },
    ],
    instances,
    'no agent is registered',
  );
}

/** `reach agent <id>`. */
export function formatAgent(i: InstanceView, now: number): string {
  return formatFields([
    ['instance', i.instance_id],
    ['agent', i.agent_name],
    ['state', i.state],
    ['domain', i.domain],
    ['capabilities', i.capabilities.join(', ')],
    ['priority', String(i.priority)],
    ['endpoint', `${i.endpoint.scheme}://${i.endpoint.host}:${i.endpoint.port}`],
    ['card', i.card_url],
    ['card sha256', i.card_sha256],
    ['declaration', i.declaration_version],
    ['registered', i.registered_at],
    ['heartbeat', `${formatAgo(i.last_heartbeat_at, now)} (seq ${i.last_seq})`],
    ['load', `${i.load.in_flight} in flight of ${i.load.capacity}, ${i.load.queue} queued`],
  ]);
}

/** Whether a version is verified, by whom; else how many successful calls it has served so far. */
function trustOf(e: DeclarationHistoryEntry): string {
  return e.verified
    ? `verified (${e.verified_by === 'calls' ? 'by calls' : `by ${e.verified_by}`})`
    : `unverified (${e.successful_calls} successful calls)`;
}

/** `reach verify-version`: the version and its verification. */
export function formatVerified(e: DeclarationHistoryEntry): string {
  return formatFields([
    ['agent', e.agent_name],
    ['version', e.version],
    ['verified', e.verified ? `${e.verified_at} by ${e.verified_by}` : 'no'],
    ['reason', e.verified_reason ?? '-'],
  ]);
}

/** `reach declarations <agent>`: one block per version, newest last. */
export function formatDeclarations(agent: string, history: DeclarationHistoryEntry[]): string {
  if (history.length === 0) return `no declarations recorded for ${agent}`;
  return history
    .map((e) => {
      const ops = formatTable(
        [
          { header: 'operation', cell: ([name]) => name },
          { header: 'serves', cell: ([, op]) => op.serves.join(',') || '-' },
          { header: 'max input', cell: ([, op]) => String(op.constraints.max_tokens ?? '-'), align: 'right' },
          {
            header: 'answer',
            cell: ([, op]) =>
              op.constraints.response_time_sec ? `${op.constraints.response_time_sec}s` : '-',
          },
          { header: 'formats', cell: ([, op]) => op.constraints.output_formats?.join(',') ?? '-' },
        ],
        Object.entries(e.declaration.capabilities),
      );
      const head = `version ${e.version}  ${e.recorded_at}  ${trustOf(e)}  ${e.change_reason ?? '(no change reason)'}`;
      const facts = `domain ${e.declaration.domain}, priority ${e.declaration.priority}, idempotent ${e.declaration.idempotent}, substitutable ${e.declaration.substitutable}`;
      return `${head}\n  ${facts}\n${ops.replace(/^/gm, '  ')}`;
    })
    .join('\n\n');
}

/** `reach route`: ranked candidates with the score factors. */
export function formatRoute(route: RouteResponse): string {
  const table = formatTable(
    [
      { header: '#', cell: (c) => String(route.candidates.indexOf(c) + 1), align: 'right' },
      { header: 'instance', cell: (c) => c.instance_id },
      { header: 'agent', cell: (c) => c.agent_name },
      { header: 'state', cell: (c) => c.state },
      { header: 'score', cell: (c) => c.score.toFixed(3), align: 'right' },
      { header: 'match', cell: (c) => c.breakdown.match.toFixed(2), align: 'right' },
      { header: 'health', cell: (c) => c.breakdown.health.toFixed(2), align: 'right' },
      { header: 'success', cell: (c) => c.breakdown.success_rate.toFixed(2), align: 'right' },
      { header: 'load', cell: (c) => c.breakdown.load.toFixed(2), align: 'right' },
      { header: 'warmup', cell: (c) => c.breakdown.warmup.toFixed(2), align: 'right' },
      { header: 'prio', cell: (c) => c.breakdown.priority.toFixed(2), align: 'right' },
      { header: 'endpoint', cell: (c) => `${c.endpoint.host}:${c.endpoint.port}` },
    ],
    route.candidates,
    'no candidates',
  );
  const notes = [
    route.conflict
      ? `conflict on ${route.conflict.capability}: ${route.conflict.agents.join(', ')} (only the top one is returned)`
      : null,
    route.cached ? '(from the route cache)' : null,
  ].filter((n) => n !== null);
  return [table, ...notes].join('\n');
}

/** `reach register --card`: what the registry published and how it keeps the agent alive. */
export function formatExternal(r: ExternalAgentResponse): string {
  return formatFields([
    ['instance', r.instance_id],
    ['agent', r.agent_name],
    [
      'capabilities',
      Object.entries(r.capabilities)
        .map(([skill, cap]) => `${skill} → ${cap}`)
        .join(', '),
    ],
    ['calls', `${r.a2a.binding} ${r.a2a.url}`],
    ['card', `${r.card_url} (sha256 ${r.card_sha256})`],
    ['declaration', r.declaration_version],
    ['probed every', `${r.probe_interval_ms} ms (a failed probe is a missed heartbeat)`],
    ['lease token', r.lease_token],
  ]);
}

/** `reach conflicts`. */
export function formatConflicts(conflicts: ConflictView[]): string {
  return formatTable(
    [
      { header: 'capability', cell: (c) => c.capability },
      { header: 'domain', cell: (c) => c.domain },
      { header: 'priority', cell: (c) => String(c.priority), align: 'right' },
      { header: 'agents', cell: (c) => c.agents.join(', ') },
      { header: 'formats', cell: (c) => c.overlap?.output_formats?.join(',') ?? 'any' },
      { header: 'max input', cell: (c) => String(c.overlap?.max_tokens ?? 'any'), align: 'right' },
      { header: 'since', cell: (c) => c.since },
    ],
    conflicts,
    'no conflicts',
  );
}

/** `reach stats`: the three routing indicators and per-instance windows. */
export function formatRoutingStats(stats: RoutingStats): string {
  const head = formatFields([
    [
      'route hit rate',
      `${formatPct(stats.calls.hit_rate)} of ${stats.calls.total} calls (first candidate served)`,
    ],
    ['fallback rate', formatPct(stats.calls.fallback_rate)],
    ['failed calls', String(stats.calls.failed)],
    [
      'retries',
      Object.entries(stats.calls.retries)
        .map(([k, v]) => `${k}:${v}`)
        .join('  ') || '-',
    ],
    ['route queries', `${stats.routes.total} (cache hit rate ${formatPct(stats.routes.cache_hit_rate)})`],
  ]);
  const instances = formatTable(
    [
      { header: 'instance', cell: (i) => i.instance_id },
      { header: 'agent', cell: (i) => i.agent_name },
      { header: 'state', cell: (i) => i.state },
      { header: 'window', cell: (i) => String(i.window), align: 'right' },
      { header: 'failures', cell: (i) => String(i.failures), align: 'right' },
      { header: 'success', cell: (i) => formatPct(i.success_rate), align: 'right' },
      { header: 'p50', cell: (i) => formatMs(i.latency_ms?.p50), align: 'right' },
      { header: 'p95', cell: (i) => formatMs(i.latency_ms?.p95), align: 'right' },
    ],
    stats.instances,
    'no instance has outcomes yet',
  );
  return `${head}\n\n${instances}`;
}
