import type { NodeStatus, RunOutcome } from '../traces/status.js';

/** Capabilities whose output is deliverable text appended verbatim to the summary (seed 3.6). */
export const DELIVERABLE_CAPS: ReadonlySet<string> = new Set(['writing', 'implementation']);

/** One node as the run ended. */
export interface NodeOutcome {
  node_id: string;
  capability: string;
  status: NodeStatus;
  output?: string | null;
}

/** The marker in front of each appended deliverable (seed 3.6). */
export function deliverableMarker(nodeId: string, capability: string): string {
  return `<!-- 交付物正文 · ${nodeId} · ${capability} -->`;
}

/** The marker in front of other nodes' output when the final node failed. */
export function nodeOutputMarker(nodeId: string, capability: string): string {
  return `<!-- 节点输出 · ${nodeId} · ${capability} -->`;
}

/** A node that did not deliver: no live agent to run it (a `capability_unavailable` binding) or it failed. */
export interface MissingCapability {
  node_id: string;
  capability: string;
  reason: string;
}

/** The marker and sentence that say which capabilities the answer lacks. */
export function missingNote(missing: readonly MissingCapability[]): string {
  const list = missing.map((m) => `${m.capability} (${m.node_id}: ${m.reason})`).join(', ');
  return [
    `<!-- 缺少能力 · missing capabilities · ${missing.map((m) => m.capability).join(' ')} -->`,
    `缺少能力，以下部分未完成：${list}。`,
    `Missing: no live agent answered for ${list}; this answer lacks their part.`,
  ].join('\n');
}

const text = (o: NodeOutcome) => (o.status === 'succeeded' ? (o.output ?? '').trim() : '');

/**
 * The run's answer (seed 3.6): the final node's output as the summary, then every writing and
 * implementation output in full, each behind its marker. When the final node failed, every other
 * successful output is appended too, so a degraded run still hands over what was done. Capabilities
 * that had no live agent are named at the end, so the answer says what it lacks.
 */
export function assembleDeliverable(
  outcomes: readonly NodeOutcome[],
  finalNodeId: string,
  missing: readonly MissingCapability[] = [],
): string {
  const final = outcomes.find((o) => o.node_id === finalNodeId);
  const summary = final ? text(final) : '';
  const parts: string[] = [];
  if (summary) parts.push(summary);
  else parts.push(`<!-- 汇总节点 ${finalNodeId} 未成功 · the final node did not succeed -->`);
  for (const o of outcomes) {
    const body = text(o);
    if (o.node_id === finalNodeId || body === '') continue;
    if (DELIVERABLE_CAPS.has(o.capability))
      parts.push(`${deliverableMarker(o.node_id, o.capability)}\n${body}`);
    else if (!summary) parts.push(`${nodeOutputMarker(o.node_id, o.capability)}\n${body}`);
  }
  if (missing.length > 0) parts.push(missingNote(missing));
  return parts.join('\n\n');
}

/**
 * The run's status (seed 3.6): the final node failed and nothing succeeded → failed; the final node
 * failed but others succeeded, or any node failed → degraded; otherwise ok.
 */
export function runStatus(outcomes: readonly NodeOutcome[], finalNodeId: string): RunOutcome {
  const finalOk = outcomes.some((o) => o.node_id === finalNodeId && o.status === 'succeeded');
  const anySucceeded = outcomes.some((o) => o.status === 'succeeded');
  const anyFailed = outcomes.some((o) => o.status !== 'succeeded');
  if (!finalOk && !anySucceeded) return 'failed';
  if (!finalOk || anyFailed) return 'degraded';
  return 'ok';
}
