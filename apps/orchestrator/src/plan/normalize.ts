import { hasCodingSignal } from '../deliverables/deliverable-kind.js';
import { type CandidateNode, type CandidatePlan, coercePlan } from './coerce.js';
import { fallbackPlan } from './fallback-plan.js';
import { breakCycles, levels } from './graph.js';
import {
  FINAL_CAPABILITY,
  MAX_NODES,
  type NormalizeContext,
  type NormalizedPlan,
  type Plan,
} from './schema.js';

/**
 * Turns any model output into a valid plan by the seven rules of seed 2.6: fallback on garbage,
 * unknown capabilities dropped, duplicates merged, implementation without code corrected to writing,
 * illegal dependencies removed, cycles broken, synthesis forced last — and at most MAX_NODES nodes.
 */
export function normalizePlan(raw: unknown, ctx: NormalizeContext): NormalizedPlan {
  const warnings: string[] = [];
  const candidate = coercePlan(raw, warnings);
  if (candidate !== null) {
    const known = knownCapabilities(ctx);
    if (candidate.nodes.some((n) => known.has(n.capability))) {
      return { plan: shape(candidate, ctx, warnings), warnings, degraded: false };
    }
    warnings.push('planner output has no node with a known capability — using the fallback plan');
  } else {
    warnings.push('planner output is not a plan (no object with nodes) — using the fallback plan');
  }
  const fallback = coercePlan(fallbackPlan(ctx.task), [])!;
  return { plan: shape(fallback, ctx, warnings), warnings, degraded: true };
}

function knownCapabilities(ctx: NormalizeContext): Set<string> {
  return new Set([...ctx.catalog, FINAL_CAPABILITY]);
}

function shape(candidate: CandidatePlan, ctx: NormalizeContext, warnings: string[]): Plan {
  const known = knownCapabilities(ctx);
  const removed = new Map<string, string>();
  const redirect = new Map<string, string>();

  // Rule 2: unknown capabilities.
  let nodes = candidate.nodes.filter((n) => {
    if (known.has(n.capability)) return true;
    removed.set(n.id, `unknown capability ${JSON.stringify(n.capability)}`);
    warnings.push(`${n.id}: unknown capability ${JSON.stringify(n.capability)} — dropped`);
    return false;
  });

  // Rule 4 (before dedup, so a corrected node that repeats writing is merged too).
  const coding = new Set(ctx.coding ?? ['implementation']);
  nodes = nodes.flatMap((n) => {
    const corrected = correctDeliverable(n, ctx, known, coding, warnings);
    if (corrected === null) removed.set(n.id, `coding capability ${n.capability} without a coding signal`);
    return corrected === null ? [] : [corrected];
  });

  // Rule 3: one node per capability; later repeats redirect to the first.
  const firstOf = new Map<string, string>();
  nodes = nodes.filter((n) => {
    const first = firstOf.get(n.capability);
    if (first === undefined) {
      firstOf.set(n.capability, n.id);
      return true;
    }
    redirect.set(n.id, first);
    warnings.push(`${n.id}: repeats capability ${n.capability} of ${first} — merged into ${first}`);
    return false;
  });

  // MAX_NODES: keep the first ones, always keep synthesis.
  let others = nodes.filter((n) => n.capability !== FINAL_CAPABILITY);
  for (const n of others.slice(MAX_NODES - 1)) {
    removed.set(n.id, `over the limit of ${MAX_NODES} nodes`);
    warnings.push(`${n.id}: over the limit of ${MAX_NODES} nodes — dropped`);
  }
  others = others.slice(0, MAX_NODES - 1);

  const resolve = (ref: string): string => {
    const id = candidate.aliases.get(ref) ?? ref;
    return redirect.get(id) ?? id;
  };

  // Rule 7 (first half): synthesis exists and is last.
  const final = synthesisNode(nodes, others, candidate, resolve, warnings);

  // Rule 5: dependencies must name another present, non-final node.
  const present = new Set(others.map((n) => n.id));
  others = others.map((n) => {
    const deps: string[] = [];
    for (const dep of n.depends_on) {
      const id = resolve(dep);
      if (id === n.id) warnings.push(`${n.id}: depends on itself — removed`);
      else if (id === final.id) warnings.push(`${n.id}: depends on the final node ${id} — removed`);
      else if (!present.has(id)) {
        const why = removed.get(id) ?? 'no such node';
        warnings.push(`${n.id}: depends on ${JSON.stringify(dep)} (${why}) — removed`);
      } else if (!deps.includes(id)) deps.push(id);
    }
    return { ...n, depends_on: deps };
  });

  // Rule 6: break cycles with edges to earlier nodes only.
  const broken = breakCycles(others);
  for (const e of broken.cut) warnings.push(`${e.from}: dependency on ${e.to} closes a cycle — removed`);

  // Rule 7 (second half): the final node depends on everything else.
  const all = [...broken.nodes, { ...final, depends_on: broken.nodes.map((n) => n.id) }];
  warnUnavailable(all, ctx, warnings);
  const layered = levels({ nodes: all });
  const layerOf = new Map(layered.flatMap((ids, i) => ids.map((id) => [id, i] as const)));
  return {
    intent: (candidate.intent || ctx.task.trim()).slice(0, 60),
    nodes: all.map((n) => ({
      id: n.id,
      capability: n.capability,
      depends_on: n.depends_on,
      parallel_group: n.parallel_group || `g${(layerOf.get(n.id) ?? 0) + 1}`,
      purpose: n.purpose,
    })),
    final_node: final.id,
    reasoning: candidate.reasoning,
  };
}

/**
 * Seed 1.3, generalised: a node of a coding capability (implementation, or a live one tagged as code)
 * whose purpose and task carry no coding signal becomes writing — or, without writing, is dropped.
 */
function correctDeliverable(
  n: CandidateNode,
  ctx: NormalizeContext,
  known: Set<string>,
  coding: Set<string>,
  warnings: string[],
): CandidateNode | null {
  if (!coding.has(n.capability) || hasCodingSignal(n.purpose) || hasCodingSignal(ctx.task)) return n;
  if (!known.has('writing') || coding.has('writing')) {
    warnings.push(
      `${n.id}: ${n.capability} has no coding signal and writing is not in the catalog — dropped`,
    );
    return null;
  }
  warnings.push(`${n.id}: ${n.capability} → writing (no coding signal in its purpose or the task)`);
  return { ...n, capability: 'writing' };
}

function synthesisNode(
  nodes: CandidateNode[],
  others: CandidateNode[],
  candidate: CandidatePlan,
  resolve: (ref: string) => string,
  warnings: string[],
): CandidateNode {
  const existing = nodes.find((n) => n.capability === FINAL_CAPABILITY);
  const final: CandidateNode = existing ?? {
    id: unusedId(others, candidate),
    capability: FINAL_CAPABILITY,
    depends_on: [],
    parallel_group: '',
    purpose: '合并以上输出，给出最终答案',
  };
  if (!existing) warnings.push(`no synthesis node — added ${final.id} as the final node`);
  if (existing && candidate.finalNode !== null && resolve(candidate.finalNode) !== final.id) {
    warnings.push(
      `final_node ${JSON.stringify(candidate.finalNode)} is not synthesis — ${final.id} is final`,
    );
  }
  return final;
}

function unusedId(others: CandidateNode[], candidate: CandidatePlan): string {
  const taken = new Set([
    ...others.map((n) => n.id),
    ...candidate.aliases.keys(),
    ...candidate.aliases.values(),
  ]);
  let i = others.length + 1;
  while (taken.has(`n${i}`)) i += 1;
  return `n${i}`;
}

function warnUnavailable(nodes: CandidateNode[], ctx: NormalizeContext, warnings: string[]): void {
  if (ctx.available === undefined) return;
  const live = new Set(ctx.available);
  for (const n of nodes) {
    if (!live.has(n.capability))
      warnings.push(`${n.id}: capability ${n.capability} has no live agent right now`);
  }
}
