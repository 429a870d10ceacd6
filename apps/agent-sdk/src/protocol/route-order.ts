import type { RouteQuery } from './route.js';

/**
 * The canonical key of a route query: everything that changes which instances qualify and how they
 * score. `max_candidates` is left out (answers are truncated per request) and `exclude` is sorted.
 * The registry's route cache and ReachClient's use the same key.
 */
export function routeQueryKey(query: RouteQuery): string {
  const c = query.constraints;
  const exclude = query.exclude.length > 1 ? [...query.exclude].sort() : query.exclude;
  return `${query.domain ?? ''}\u0000${query.operation}\u0000${c.input_size ?? ''}\u0000${c.max_latency_sec ?? ''}\u0000${
    c.output_format ?? ''
  }\u0000${exclude.join(',')}`;
}

/** What the order of a route answer depends on: a candidate's liveness state and its score. */
export interface Orderable {
  state: string;
  score: number;
}

/**
 * The order of a route answer: healthy candidates before the others; within each group a score-weighted
 * draw without replacement (Efraimidis–Spirakis), so a candidate comes first with a probability
 * proportional to its score. Returns at most `limit` indices into `ranked`.
 *
 * The registry draws it for every answer it sends, and ReachClient draws it again for every call it
 * serves from its own route cache, so callers of one need spread over the candidates either way.
 */
export function drawRouteOrder(
  ranked: readonly Orderable[],
  limit: number,
  random: () => number = Math.random,
): number[] {
  const keyed = ranked.map((candidate, index) => ({
    index,
    tier: candidate.state === 'healthy' ? 0 : 1,
    key: random() ** (1 / Math.max(candidate.score, 1e-9)),
  }));
  keyed.sort((a, b) => a.tier - b.tier || b.key - a.key);
  return keyed.slice(0, limit).map((entry) => entry.index);
}
