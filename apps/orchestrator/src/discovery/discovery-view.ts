import type { AgentCard, CandidateView, DiscoveryStats } from '@agent-reach/sdk/protocol';

// The discovery view is a wire type: its home is the SDK's protocol.
export {
  CandidateView,
  CapabilityResolution,
  CapabilityView,
  CatalogText,
  DescribedBy,
  DiscoveryReason,
  DiscoverySource,
  DiscoveryStats,
  DiscoveryView,
  FailedCandidate,
  IndexRead,
} from '@agent-reach/sdk/protocol';

/** A candidate with what calling it needs: the base URL DNS gave and the verified card. */
export interface Candidate extends CandidateView {
  baseUrl: string;
  card: AgentCard;
}

/** A zeroed counter set. */
export function emptyStats(): DiscoveryStats {
  return {
    dns_queries: 0,
    dns_tcp_fallbacks: 0,
    card_fetches: 0,
    card_cache_hits: 0,
    card_negative_hits: 0,
    card_failures: 0,
    health_probes: 0,
  };
}

/** Adds `b` into `a`. */
export function addStats(a: DiscoveryStats, b: DiscoveryStats): void {
  for (const key of Object.keys(a) as (keyof DiscoveryStats)[]) a[key] += b[key];
}
