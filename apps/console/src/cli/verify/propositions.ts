import type { ApiClient } from '../api-client.js';
import type { DiscoveryView, TraceDetail, TraceEventView } from '../orchestrator-views.js';
import { FAULTY_AGENT_NAME } from './faulty-agent.js';
import { SEED_FIGURES, SEED_TASK, V6_TASKS } from './seed-figures.js';

/** One of the seed's propositions as `reach verify` judged it on the live system. */
export interface Verdict {
  id: 'V1' | 'V2' | 'V3' | 'V4' | 'V5' | 'V6';
  title: string;
  ok: boolean;
  /** Our figures, in the seed table's terms. */
  ours: string;
  seed: string;
  /** Why it failed (absent when it held). */
  why?: string;
}

/** What the checks share: the APIs, and a record of every run they started (deleted afterwards). */
export interface VerifyContext {
  api: ApiClient;
  /** Runs a task to its end and returns its trace; the id is remembered for the cleanup. */
  run(task: string): Promise<TraceDetail>;
}

const verdict = (v: Omit<Verdict, 'seed'>, why: string | null): Verdict => ({
  ...v,
  seed: SEED_FIGURES[v.id],
  ...(why === null ? {} : { ok: false, why }),
});

/** V1: every catalog capability resolves through the capability's own DNS names, no generic fallback. */
export function checkV1(view: DiscoveryView): Verdict {
  const caps = Object.values(view.capabilities);
  const available = caps.filter((c) => c.available);
  const sources = new Map<string, number>();
  for (const c of available) sources.set(c.source, (sources.get(c.source) ?? 0) + 1);
  const generic = available.filter((c) => c.source.startsWith('generic')).map((c) => c.capability);
  const missing = caps.filter((c) => !c.available).map((c) => `${c.capability} (${c.reason ?? 'no agent'})`);
  const ours = `${available.length}/${caps.length} ${[...sources].map(([s, n]) => `${s}×${n}`).join(' ')}, ${generic.length} generic fallbacks, index ${view.duration_ms.toFixed(2)} ms`;
  const why =
    missing.length > 0
      ? `unavailable: ${missing.join(', ')}`
      : generic.length > 0
        ? `resolved only through the generic fallback: ${generic.join(', ')}`
        : null;
  return verdict(
    { id: 'V1', title: 'capability addressing replaces hard-coded call chains', ok: true, ours },
    why,
  );
}

/**
 * V2: discovery costs grow with capabilities, not instances: at most the three DNS lookups of the
 * fallback chain per capability, cards from the cache on a repeated discovery, no card failures.
 */
export function checkV2(first: DiscoveryView, second: DiscoveryView, instances: number): Verdict {
  const caps = Object.keys(second.capabilities).length;
  const s = second.stats;
  const get = (k: keyof DiscoveryView['stats']) => s[k] ?? 0;
  const ours = `per discovery: dns_queries ${get('dns_queries')}, card_fetches ${get('card_fetches')}, card_cache_hits ${get('card_cache_hits')}, card_failures ${get('card_failures')}, health_probes ${get('health_probes')} (${caps} capabilities, ${instances} instances; first pass fetched ${first.stats.card_fetches ?? 0} cards)`;
  let why: string | null = null;
  if (get('dns_queries') > 3 * caps)
    why = `${get('dns_queries')} DNS queries for ${caps} capabilities: more than the fallback chain's three per capability`;
  else if (get('card_fetches') > 0)
    why = `a repeated discovery fetched ${get('card_fetches')} cards again instead of using the cache`;
  else if (get('card_failures') > 0) why = `${get('card_failures')} card fetches failed`;
  else if (get('card_cache_hits') === 0) why = 'no card came from the cache';
  return verdict(
    { id: 'V2', title: 'discovery cost is decoupled from the number of agents', ok: true, ours },
    why,
  );
}

/** The time between the first and last event of a layer, and when each node ran. */
function nodeSpans(events: readonly TraceEventView[]): Map<string, { start: number; end: number }> {
  const spans = new Map<string, { start: number; end: number }>();
  for (const e of events) {
    const id = e.data.node_id;
    if (typeof id !== 'string') continue;
    const at = Date.parse(e.at);
    if (e.type === 'node_started') spans.set(id, { start: at, end: at });
    else if (['node_succeeded', 'node_failed'].includes(e.type) && spans.has(id)) spans.get(id)!.end = at;
  }
  return spans;
}

/** V4: nodes of a layer run at the same time, so the layers take their critical path, not the sum. */
export function checkV4(detail: TraceDetail): Verdict {
  const started = detail.events.filter((e) => e.type === 'layer_started');
  const layers = started.map(
    (e) => `{${e.data.layer},[${(e.data.nodes as string[]).join(',')}],${e.data.mode}}`,
  );
  const spans = nodeSpans(detail.events);
  const sum = [...spans.values()].reduce((a, s) => a + (s.end - s.start), 0);
  const first = Math.min(...[...spans.values()].map((s) => s.start));
  const last = Math.max(...[...spans.values()].map((s) => s.end));
  const ours = `${layers.join(' → ')}; node time summed ${sum} ms, layers took ${last - first} ms`;
  const parallel = started.filter((e) => e.data.mode === 'parallel');
  let why: string | null = null;
  if (parallel.length === 0) why = 'the plan has no layer of parallel nodes';
  for (const layer of parallel) {
    const ids = layer.data.nodes as string[];
    const s = ids.map((id) => spans.get(id)).filter((x) => x !== undefined);
    // Concurrent: every node of the layer started before any of them ended.
    if (s.length === ids.length && Math.max(...s.map((x) => x.start)) > Math.min(...s.map((x) => x.end)))
      why = `layer ${layer.data.layer} ran its nodes one after another`;
  }
  return verdict({ id: 'V4', title: 'DAG layers remove serial latency', ok: true, ours }, why);
}

/** V5: the trace answers what was asked, considered, bound, sent and returned, and replays in full. */
export async function checkV5(api: ApiClient, detail: TraceDetail): Promise<Verdict> {
  const types = new Set(detail.events.map((e) => e.type));
  const inputs = detail.events.filter((e) => e.type === 'node_input');
  const replayed = await replaySeqs(api, detail.trace.id);
  const stored = detail.events.map((e) => e.seq);
  const ours = `trace ${detail.trace.id.slice(0, 12)}: ${detail.nodes.length} nodes, ${detail.events.length} events, plan ${detail.plan ? 'stored' : 'missing'}, ${inputs.length} node_input in full, SSE replay ${replayed.length} events`;
  const needed = [
    'discovery_finished',
    'plan_ready',
    'agents_bound',
    'node_input',
    'node_output',
    'trace_finished',
  ];
  const absent = needed.filter((t) => !types.has(t));
  let why: string | null = null;
  if (detail.plan === null) why = 'the trace has no plan';
  else if (absent.length > 0) why = `the trace lacks ${absent.join(', ')}`;
  else if (detail.nodes.some((n) => n.status === 'succeeded' && n.input_context === null))
    why = 'a node does not record the context it received';
  else if (replayed.join(',') !== stored.join(','))
    why = `the SSE replay gave seqs ${replayed.length} events, the store ${stored.length}`;
  return verdict({ id: 'V5', title: 'a run can be reproduced in full afterwards', ok: true, ours }, why);
}

/** Every event seq `GET /api/stream/{id}` replays from the start, read until the stream ends. */
async function replaySeqs(api: ApiClient, id: string): Promise<number[]> {
  const res = await api.stream(id, 0, AbortSignal.timeout(10_000));
  const text = await res.text();
  return [...text.matchAll(/^id: ?(\d+)$/gm)].map((m) => Number(m[1]));
}

/** V6: the seed's two look-alike tasks reach different capabilities. */
export async function checkV6(ctx: VerifyContext): Promise<Verdict> {
  const parts: string[] = [];
  let why: string | null = null;
  for (const t of V6_TASKS) {
    const detail = await ctx.run(t.task);
    const caps = detail.nodes.map((n) => n.capability);
    const warnings = detail.plan?.warnings.length ?? 0;
    parts.push(
      `${t.task} → ${caps.includes(t.must) ? t.must : caps.join('+')}${warnings ? ` (${warnings} warnings)` : ''}`,
    );
    if (!caps.includes(t.must)) why = `"${t.task}" was not routed to ${t.must} (got ${caps.join(', ')})`;
    else if (t.mustNot !== null && caps.includes(t.mustNot)) why = `"${t.task}" also went to ${t.mustNot}`;
  }
  return verdict(
    { id: 'V6', title: 'similar wording reaches different capabilities', ok: true, ours: parts.join('; ') },
    why,
  );
}

/**
 * V3, from one run with the faulty agent registered: every node whose attempt on it failed went on
 * to another candidate and succeeded. Null when the faulty agent was never tried (bound elsewhere).
 */
export function checkV3(detail: TraceDetail): Verdict | null {
  const failedOnFaulty = detail.events.filter(
    (e) => e.type === 'node_attempt_failed' && e.data.agent === FAULTY_AGENT_NAME,
  );
  if (failedOnFaulty.length === 0) return null;
  const nodes = [...new Set(failedOnFaulty.map((e) => e.data.node_id as string))];
  const recovered: string[] = [];
  const stuck: string[] = [];
  for (const id of nodes) {
    const retried = detail.events.some((e) => e.type === 'node_retry' && e.data.node_id === id);
    const succeeded = detail.events.find((e) => e.type === 'node_succeeded' && e.data.node_id === id);
    if (retried && succeeded !== undefined && succeeded.data.agent !== FAULTY_AGENT_NAME)
      recovered.push(`${id}→${succeeded.data.agent}`);
    else {
      const node = detail.nodes.find((n) => n.node_id === id);
      stuck.push(`${id} (${node?.capability ?? '?'})`);
    }
  }
  const ours = `${nodes.length} node(s) failed on the faulty agent: node_attempt_failed → node_retry → ${recovered.join(', ') || 'none recovered'}; run ${detail.trace.status}`;
  const why =
    stuck.length > 0
      ? `node ${stuck.join(', ')} failed on ${FAULTY_AGENT_NAME} and no other candidate took it over`
      : detail.trace.status === 'failed'
        ? 'the run failed'
        : null;
  return verdict({ id: 'V3', title: 'a local fault stays local', ok: true, ours }, why);
}

export { SEED_TASK };
