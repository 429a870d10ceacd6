import { UdpDnsClient } from '../dns/index.js';
import { err, ok, ReachError, type Result } from '../protocol/errors.js';
import type { RouteCandidate, RouteQuery } from '../protocol/route.js';
import type { CompiledClientOptions } from './client-options.js';
import { ClientRouteCache, ROUTE_CACHE_FILL } from './client-route-cache.js';
import { type DnsFallback, resolveViaDns } from './dns-candidates.js';
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

function fromRegistry(
  candidates: readonly RouteCandidate[],
  conflict: Routed['conflict'],
  cached: boolean,
): Routed {
  const targets = candidates.map(targetFromCandidate);
  return { source: 'registry', cached, conflict, candidates: targets.length, targets };
}

/**
 * Finds targets: the client's route cache (when on), then the registry's `POST /v1/route`; DNS (SVCB,
 * then SRV) only when the registry is unreachable. An empty registry answer is final (the registry
 * knows), so DNS is not asked then.
 */
export class CandidateRouter {
  private readonly cache: ClientRouteCache | undefined;
  private readonly dns: DnsFallback | undefined;
  private readonly dnsClient: UdpDnsClient | undefined;

  constructor(
    private readonly options: Pick<
      CompiledClientOptions,
      'registryUrl' | 'dns' | 'fetch' | 'routeTimeoutMs' | 'routeCache' | 'clock'
    >,
  ) {
    const { routeCache } = options;
    if (routeCache) this.cache = new ClientRouteCache(routeCache.ttlMs, routeCache.maxEntries, options.clock);
    const { dns } = options;
    if (dns) {
      this.dnsClient = new UdpDnsClient({ host: dns.host, port: dns.port, timeoutMs: dns.timeoutMs });
      this.dns = { client: this.dnsClient, zone: dns.zone };
    }
  }

  /** Closes the DNS client's kept TCP connection, if any. */
  close(): void {
    this.dnsClient?.close();
  }

  async route(query: RouteQuery, traceparent: string | undefined): Promise<Result<Routed, ReachError>> {
    const { registryUrl } = this.options;
    const { dns } = this;
    let why = 'no registry is configured';
    if (registryUrl) {
      const hit = this.cache?.get(query);
      if (hit) return ok(fromRegistry(hit.candidates, hit.conflict, true));
      // A cache fill asks for every candidate, so calls served from the entry can spread over them all.
      const asked = await routeViaRegistry(
        registryUrl,
        this.cache ? { ...query, max_candidates: ROUTE_CACHE_FILL } : query,
        {
          fetch: this.options.fetch,
          timeoutMs: this.options.routeTimeoutMs,
          ...(traceparent ? { traceparent } : {}),
        },
      );
      if (asked.kind === 'rejected') return err(asked.error);
      if (asked.kind === 'answer') {
        const { candidates, cached, conflict } = asked.response;
        if (candidates.length === 0) return err(noCandidates(query));
        this.cache?.set(query, asked.response);
        // The registry drew the order over all of them; the request keeps its own max_candidates.
        return ok(fromRegistry(candidates.slice(0, query.max_candidates), conflict, cached));
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

  /** A failed attempt on the instance: cached answers holding it are dropped (the registry is asked). */
  forgetInstance(instanceId: string): void {
    this.cache?.forgetInstance(instanceId);
  }
}
