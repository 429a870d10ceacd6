import type { Declaration, Load, Operation, RouteQuery, ScoreBreakdown } from '@agent-reach/sdk/protocol';

/** The tuning of the score; every factor lies in (0, 1] so none of them is a veto. */
export const SCORE = {
  /** A match through a catalog capability the operation `serves`, against 1 for the operation's own name. */
  servesMatch: 0.85,
  /** Per constraint the caller asks for that the declaration does not state (compliance unknown). */
  undeclaredConstraint: 0.9,
  /** A suspect instance (missed a heartbeat): routed last (ARCHITECTURE section 4). */
  suspect: 0.1,
  /** Share a brand-new instance starts from; it ramps to 1 over the warm-up (seed article 6.2). */
  warmupFloor: 0.1,
  /** priority/100, but never below this: a priority is a weight, not a veto (seed article 6.2). */
  priorityFloor: 0.05,
  /** Load factor floor, so a saturated instance is still a last resort. */
  loadFloor: 0.05,
  /**
   * An instance of a version other than its agent's preferred one (seed article 6.3): still drawn
   * now and then, so a new version serves the calls that verify it.
   */
  otherVersion: 0.1,
} as const;

/** How a declaration's operation relates to the wanted name. */
export type MatchVia = 'operation' | 'serves';

/**
 * Filters one operation against a query (domain, then constraints; the caller already matched the name)
 * and returns its match quality, or null when the declaration rules it out.
 */
export function matchQuality(
  declaration: Declaration,
  operation: Operation,
  via: MatchVia,
  query: Pick<RouteQuery, 'domain' | 'constraints'>,
): number | null {
  if (query.domain !== undefined && query.domain !== declaration.domain) return null;
  const wanted = query.constraints;
  const declared = operation.constraints;
  let quality = via === 'operation' ? 1 : SCORE.servesMatch;
  if (wanted.input_size !== undefined) {
    if (declared.max_tokens === undefined) quality *= SCORE.undeclaredConstraint;
    else if (wanted.input_size > declared.max_tokens) return null;
  }
  if (wanted.max_latency_sec !== undefined) {
    if (declared.response_time_sec === undefined) quality *= SCORE.undeclaredConstraint;
    else if (declared.response_time_sec > wanted.max_latency_sec) return null;
  }
  if (wanted.output_format !== undefined) {
    if (declared.output_formats === undefined) quality *= SCORE.undeclaredConstraint;
    else if (!declared.output_formats.includes(wanted.output_format)) return null;
  }
  return quality;
}

/** healthy 1, suspect low (routed last); anything else is not routable. */
export function healthFactor(state: string): number {
  return state === 'healthy' ? 1 : SCORE.suspect;
}

/** 1 when idle, 1/2 at capacity, lower still with a queue: 1 / (1 + in_flight/capacity + 2·queue/capacity). */
export function loadFactor(load: Load | undefined): number {
  if (!load) return 1;
  const capacity = Math.max(1, load.capacity);
  return Math.max(SCORE.loadFloor, 1 / (1 + load.in_flight / capacity + (2 * load.queue) / capacity));
}

/** Ramps linearly from the floor to 1 over `warmupMs` since registration (monotonic ages only). */
export function warmupFactor(ageMs: number, warmupMs: number): number {
  if (warmupMs <= 0 || ageMs >= warmupMs) return 1;
  return SCORE.warmupFloor + (1 - SCORE.warmupFloor) * Math.max(0, ageMs / warmupMs);
}

/** The declared priority (0-100) as a weight with a floor. */
export function priorityFactor(priority: number): number {
  return Math.max(SCORE.priorityFloor, Math.min(1, priority / 100));
}

/** The factors of one candidate and their product. */
export function scoreOf(breakdown: ScoreBreakdown): number {
  return (
    breakdown.match *
    breakdown.health *
    breakdown.success_rate *
    breakdown.load *
    breakdown.warmup *
    breakdown.priority *
    (breakdown.version ?? 1)
  );
}
