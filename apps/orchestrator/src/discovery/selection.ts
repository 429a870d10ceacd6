/** The selection strategy the seed names: best priority group first, weighted random inside it. */
export const SELECTION_STRATEGY = 'priority_then_weighted_random';

/** Anything with SRV-style priority (lower wins) and weight. */
export interface Weighted {
  priority: number;
  weight: number;
}

/** Random numbers in [0, 1); injected so tests can pin the draw. */
export type Random = () => number;

function drawOne<T extends Weighted>(group: T[], random: Random): number {
  // Weight 0 still gets a small chance, as RFC 2782 allows; an all-zero group is uniform.
  const weights = group.map((c) => (c.weight > 0 ? c.weight : 0.01));
  const total = weights.reduce((a, b) => a + b, 0);
  let point = random() * total;
  for (let i = 0; i < group.length; i++) {
    point -= weights[i]!;
    if (point < 0) return i;
  }
  return group.length - 1;
}

/**
 * Orders candidates for calling: priority groups ascending, and within a group repeated weighted
 * draws without replacement, so the first is the pick and the rest are its alternates.
 */
export function orderCandidates<T extends Weighted>(
  candidates: readonly T[],
  random: Random = Math.random,
): T[] {
  const priorities = [...new Set(candidates.map((c) => c.priority))].sort((a, b) => a - b);
  const out: T[] = [];
  for (const priority of priorities) {
    const group = candidates.filter((c) => c.priority === priority);
    while (group.length > 0) out.push(group.splice(drawOne(group, random), 1)[0]!);
  }
  return out;
}
