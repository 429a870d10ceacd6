import {
  type InstanceState,
  isOperationIdempotent,
  type RouteCandidate,
  type ScoreBreakdown,
} from '@agent-reach/sdk/protocol';
import type { IndexedOperation } from './operation-index.js';

function sameBreakdown(a: ScoreBreakdown, b: ScoreBreakdown): boolean {
  return (
    a.match === b.match &&
    a.health === b.health &&
    a.success_rate === b.success_rate &&
    a.load === b.load &&
    a.warmup === b.warmup &&
    a.priority === b.priority &&
    a.version === b.version
  );
}

/**
 * Route candidates shared between answers: an offer whose state and factors did not change since its
 * last candidate gets that same (never mutated) object back, and each candidate is serialised once.
 * Cached answers then hold references instead of copies, and a miss allocates little.
 */
export class CandidatePool {
  // Keyed by the capability index's offers, which a rebuild replaces, so nothing stale is kept.
  private readonly last = new WeakMap<IndexedOperation, RouteCandidate>();
  private readonly texts = new WeakMap<RouteCandidate, string>();

  /** The candidate for `offer` with these factors, reused when equal to its previous one. */
  candidate(
    offer: IndexedOperation,
    state: InstanceState,
    breakdown: ScoreBreakdown,
    score: number,
  ): RouteCandidate {
    const previous = this.last.get(offer);
    if (previous && previous.state === state && sameBreakdown(previous.breakdown, breakdown)) return previous;
    const { record } = offer;
    const candidate: RouteCandidate = {
      instance_id: record.instance_id,
      agent_name: record.agent_name,
      operation: offer.operation,
      endpoint: record.endpoint,
      card_url: record.card_url,
      ...(record.a2a ? { a2a: record.a2a } : {}),
      idempotent: isOperationIdempotent(record.declaration, offer.operation),
      declaration_version: record.declaration.version,
      state,
      score,
      breakdown,
    };
    this.last.set(offer, candidate);
    return candidate;
  }

  /** `JSON.stringify(candidate)`, computed once per candidate. */
  json(candidate: RouteCandidate): string {
    let text = this.texts.get(candidate);
    if (text === undefined) {
      text = JSON.stringify(candidate);
      this.texts.set(candidate, text);
    }
    return text;
  }
}
