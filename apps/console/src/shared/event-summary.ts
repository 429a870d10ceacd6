// One readable line per trace event, shared by the UI's event log and `reach watch`.
import type { TraceEventPayload, TraceEventType } from '@agent-reach/sdk/protocol';
import { errorText, formatMs, shorten } from './format.js';

const list = (values: unknown) => (Array.isArray(values) && values.length > 0 ? values.join(', ') : '(none)');

/** The levels of a plan as `[a] → [b, c] → [d]`. */
export function formatLevels(levels: unknown): string {
  if (!Array.isArray(levels)) return '';
  return levels.map((ids: unknown) => `[${Array.isArray(ids) ? ids.join(', ') : ''}]`).join(' → ');
}

type Summaries = { [K in TraceEventType]?: (d: TraceEventPayload<K>) => string };

const SUMMARIES: Summaries = {
  trace_started: (d) => shorten(d.task, 100) + (d.provider ? ` (provider ${d.provider})` : ''),
  discovery_finished: (d) => `${formatMs(d.ms)}; available: ${list(d.available)}`,
  plan_ready: (d) =>
    `${d.plan?.nodes?.length ?? 0} nodes in ${d.levels?.length ?? 0} layers: ${formatLevels(d.levels)}` +
    (d.degraded ? ' (fallback plan)' : '') +
    (d.warnings?.length ? `; ${d.warnings.length} warning(s)` : '') +
    (d.provider ? `; planner ${d.provider}` : ''),
  agents_bound: (d) =>
    (d.bindings ?? []).map((b) => `${b.node_id}→${b.agent ?? 'none'}`).join(', ') || '(no nodes)',
  capability_unavailable: (d) => `${d.node_id}: no agent for ${d.capability} (${d.reason})`,
  layer_started: (d) => `layer ${d.layer + 1}: ${list(d.nodes)} (${d.mode})`,
  layer_finished: (d) =>
    `layer ${d.layer + 1}: ${Object.entries(d.statuses ?? {})
      .map(([id, s]) => `${id} ${s}`)
      .join(', ')}`,
  node_started: (d) => `${d.node_id} (${d.capability})`,
  context_compacted: (d) =>
    `${d.node_id}: kept ${d.kept_chars} of ${d.original_chars} chars` +
    (d.dropped?.length ? `, dropped ${d.dropped.join(', ')}` : ''),
  node_input: (d) => `${d.node_id}${d.agent ? ` → ${String(d.agent)}` : ''}: context ${d.chars} chars`,
  node_attempt_failed: (d) =>
    `${d.node_id} attempt ${d.attempt}${d.agent ? ` at ${String(d.agent)}` : ''}: ${errorText(d.error)}`,
  node_retry: (d) => `${d.node_id} attempt ${d.attempt}${d.agent ? ` → ${String(d.agent)}` : ''}`,
  node_succeeded: (d) =>
    `${d.node_id}${d.agent ? ` by ${String(d.agent)}` : ''} in ${formatMs(d.ms)}, ${d.chars} chars, ` +
    `${d.attempts} attempt${d.attempts === 1 ? '' : 's'}`,
  node_output: (d) => `${d.node_id}: ${shorten(d.output, 80)}`,
  node_failed: (d) => `${d.node_id} (${d.stage}): ${errorText(d.error)}`,
  node_interrupted: (d) => `${d.node_id} (${d.capability}): ${d.reason}`,
  run_resumed: (d) => `by ${d.by} (resume ${d.resumes}); reused ${list(d.reused)}`,
  run_handed_over: (d) => `by ${d.by}`,
  trace_finished: (d) =>
    `${d.status}` +
    (typeof d.duration_ms === 'number' ? ` in ${formatMs(d.duration_ms)}` : '') +
    (d.error ? `: ${String(d.error)}` : ''),
};

/** The details of one trace event as a single line (the type is shown beside it, not in it). */
export function summarizeEvent(event: { type: string; data: Record<string, unknown> }): string {
  const data = event?.data ?? {};
  const summary = SUMMARIES[event?.type as TraceEventType] as ((d: unknown) => string) | undefined;
  try {
    if (summary) return summary(data);
  } catch {
    // A producer sent an unexpected payload: fall back to its JSON.
  }
  return shorten(JSON.stringify(data), 120);
}
