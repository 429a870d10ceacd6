import { formatLevels, summarizeEvent } from '../shared/event-summary.js';
import { formatAgo, formatMs, shorten } from '../shared/format.js';
import type {
  DiscoveryView,
  RunSummary,
  TraceDetail,
  TraceEventView,
  TracePage,
} from './orchestrator-views.js';
import { fit, formatFields, formatTable } from './table.js';

/** One event as `reach watch` and `reach trace` print it. */
export function formatEventLine(event: TraceEventView): string {
  const time = event.at.length >= 23 ? event.at.slice(11, 23) : event.at;
  return `#${String(event.seq).padEnd(4)} ${time}  ${event.type.padEnd(22)} ${fit(summarizeEvent(event), 140)}`;
}

/** `reach run`: status, nodes and the deliverable. */
export function formatRunSummary(run: RunSummary): string {
  const nodes = formatTable(
    [
      { header: 'node', cell: (n) => n.node_id },
      { header: 'capability', cell: (n) => n.capability },
      { header: 'status', cell: (n) => n.status },
    ],
    run.nodes,
    'no nodes ran',
  );
  const head = formatFields([
    ['trace', run.trace_id],
    ['status', run.status + (run.plan_degraded ? ' (fallback plan)' : '')],
    ['duration', formatMs(run.duration_ms)],
    ...(run.error ? ([['error', run.error]] as Array<[string, string]>) : []),
  ]);
  return `${head}\n\n${nodes}\n\n${run.summary || '(no deliverable)'}`;
}

/** `reach traces`. */
export function formatTraces(page: TracePage, now: number): string {
  const table = formatTable(
    [
      { header: 'trace', cell: (t) => t.id },
      { header: 'status', cell: (t) => t.status },
      { header: 'started', cell: (t) => formatAgo(t.started_at, now) },
      { header: 'duration', cell: (t) => formatMs(t.duration_ms), align: 'right' },
      { header: 'task', cell: (t) => t.task, max: 70 },
    ],
    page.items,
    'no traces',
  );
  return page.next_cursor ? `${table}\n(more: --cursor ${page.next_cursor})` : table;
}

/** `reach trace <id>`: header, plan, nodes, deliverable and (unless brief) the events. */
export function formatTrace(detail: TraceDetail, brief: boolean): string {
  const { trace, plan } = detail;
  const head = formatFields([
    ['trace', trace.id],
    ['status', trace.status],
    ['task', shorten(trace.task, 200)],
    ['started', trace.started_at],
    ['duration', formatMs(trace.duration_ms)],
    ['plan', plan ? `${formatLevels(plan.levels)}${plan.degraded ? ' (fallback plan)' : ''}` : '(none)'],
    ...(plan?.warnings.length ? ([['warnings', plan.warnings.join('; ')]] as Array<[string, string]>) : []),
    ...(trace.error ? ([['error', trace.error]] as Array<[string, string]>) : []),
  ]);
  const nodes = formatTable(
    [
      { header: 'layer', cell: (n) => (n.layer === null ? '-' : String(n.layer + 1)), align: 'right' },
      { header: 'node', cell: (n) => n.node_id },
      { header: 'capability', cell: (n) => n.capability },
      { header: 'status', cell: (n) => n.status },
      { header: 'agent', cell: (n) => n.agent ?? '-' },
      { header: 'attempts', cell: (n) => String(n.attempts), align: 'right' },
      { header: 'duration', cell: (n) => formatMs(n.duration_ms), align: 'right' },
      { header: 'context', cell: (n) => `${[...(n.input_context ?? '')].length}`, align: 'right' },
      { header: 'output', cell: (n) => `${n.output_chars ?? 0}`, align: 'right' },
      { header: 'error', cell: (n) => n.error ?? '' },
    ],
    detail.nodes,
    'no nodes',
  );
  const parts = [head, nodes, `deliverable:\n${trace.summary || '(none)'}`];
  if (!brief)
    parts.push(`events (${detail.events.length}):\n${detail.events.map(formatEventLine).join('\n')}`);
  return parts.join('\n\n');
}

/** Where a capability comes from: built in, published by live agents (the DNS index), or gone from it. */
function originOf(c: DiscoveryView['capabilities'][string]): string {
  if (c.builtin) return 'builtin';
  if (c.in_index === undefined) return '-';
  return c.in_index ? 'live' : 'gone';
}

/** `reach discovery`: one row per capability (origin, description, providers, DNS source), then the counters. */
export function formatDiscovery(view: DiscoveryView): string {
  const head = `zone ${view.zone} via ${view.dns_server}, ${formatMs(view.duration_ms)} at ${view.discovered_at}`;
  const table = formatTable(
    [
      { header: 'capability', cell: (c) => c.capability },
      { header: 'origin', cell: (c) => originOf(c) },
      { header: 'description', cell: (c) => c.description ?? '-', max: 48 },
      { header: 'providers', cell: (c) => c.providers?.join(' ') || '-', max: 40 },
      { header: 'source', cell: (c) => c.source },
      { header: 'available', cell: (c) => (c.available ? 'yes' : 'no') },
      { header: 'reason', cell: (c) => c.reason ?? '-' },
      {
        header: 'candidates',
        cell: (c) =>
          c.candidates.map((x) => `${x.agent_name}@${x.endpoint}(${x.priority}/${x.weight})`).join(' ') ||
          '-',
        max: 80,
      },
      {
        header: 'failed',
        cell: (c) => c.failed.map((f) => `${f.instance}:${f.stage}:${f.reason}`).join(' ') || '-',
        max: 60,
      },
    ],
    Object.values(view.capabilities),
    'no capabilities',
  );
  const counters = (Object.keys(view.stats) as Array<keyof DiscoveryView['stats']>)
    .map((k) => `${k}=${view.stats[k]} (total ${view.totals[k] ?? 0})`)
    .join('  ');
  return `${head}\n\n${table}\n\n${counters}`;
}
