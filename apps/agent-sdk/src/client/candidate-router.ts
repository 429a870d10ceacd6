import { err, ok, ReachError, type Result } from '../protocol/errors.js';
import type { RouteQuery } from '../protocol/route.js';
import type { CompiledClientOptions } from './client-options.js';
import { resolveViaDns } from './dns-candidates.js';
import { type ReachTarget, targetFromCandidate } from './reach-target.js';
import { routeViaRegistry } from './registry-router.js';

/** Ranked targets for one need, and where they came from. */
export interface Routed {
  source: 'registry' | 'dns';
  cached: boolean;
  candidates: number;
  conflict: { agents: string[]; capability: string } | null;
  targets: ReachTarget[];
}

function noCandidates(query: RouteQuery, detail = ''): ReachError {
  const where = query.domain ? ` in ${query.domain}` : '';
  return new ReachError('NO_CANDIDATES', `no live agent offers ${query.operation}${where}${detail}`, {
    data: { operation: query.operation },
  });
}

/**
 * Finds targets: the registry's `POST /v1/route` first; DNS (SVCB, then SRV) only when the registry is
 * unreachable. An empty registry answer is final (the registry knows), so DNS is not asked then.
 */
export class CandidateRouter {
  constructor(
    private readonly options: Pick<CompiledClientOptions, 'registryUrl' | 'dns' | 'fetch' | 'routeTimeoutMs'>,
  ) {}

  async route(query: RouteQuery, traceparent: string | undefined): Promise<Result<Routed, ReachError>> {
    const { registryUrl, dns } = this.options;
    let why = 'no registry is configured';
    if (registryUrl) {
      const asked = await routeViaRegistry(registryUrl, query, {
        fetch: this.options.fetch,
        timeoutMs: this.options.routeTimeoutMs,
        ...(traceparent ? { traceparent } : {}),
      });
      if (asked.kind === 'rejected') return err(asked.error);
      if (asked.kind === 'answer') {
        const { candidates, cached, conflict } = asked.response;
        if (candidates.length === 0) return err(noCandidates(query));
        const targets = candidates.map(targetFromCandidate);
        return ok({ source: 'registry', cached, conflict, candidates: targets.length, targets });
      }
      why = `the registry is unreachable (${asked.reason})`;
    }
    if (!dns) {
      const message = `cannot route ${query.operation}: ${why} and no DNS fallback is configured`;
      return err(new ReachError('UNAVAILABLE', message));
    }
    const excluded = new Set(query.exclude);
    const found = await resolveViaDns(dns, query.operation).catch(() => []);
    const targets = found
      .filter((t) => !excluded.has(t.instance_id) && !excluded.has(t.agent_name))
      .slice(0, query.max_candidates);
    if (targets.length === 0) return err(noCandidates(query, ` (${why}; DNS has none)`));
    return ok({ source: 'dns', cached: false, conflict: null, candidates: targets.length, targets });
  }
}
