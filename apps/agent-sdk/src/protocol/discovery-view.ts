import { z } from 'zod';

// `GET /api/discovery` of the orchestrator: what one DNS discovery pass found, per capability.

/** Which DNS name answered for a capability (seed 2.5, plus SVCB first). */
export const DiscoverySource = z.enum(['svcb', 'role_srv', 'generic_srv_filtered', 'none']);
export type DiscoverySource = z.infer<typeof DiscoverySource>;

/** Why a capability has no usable candidate, or `unverified_only` when only unprobed ones are left. */
export const DiscoveryReason = z.enum([
  'no_dns_record',
  'dns_unavailable',
  'all_cards_unreachable',
  'all_unhealthy',
  'unverified_only',
]);
export type DiscoveryReason = z.infer<typeof DiscoveryReason>;

/** One usable instance for a capability, as the discovery view shows it. */
export const CandidateView = z.object({
  instance: z.string(),
  agent_name: z.string(),
  /** `address:port`, the only place calls go. */
  endpoint: z.string(),
  target: z.string(),
  address: z.string(),
  port: z.number().int(),
  priority: z.number().int(),
  weight: z.number(),
  health: z.enum(['healthy', 'unverified']),
  card_version: z.string(),
  card_sha256: z.string(),
  capability_ids: z.array(z.string()),
  idempotent: z.boolean(),
});
export type CandidateView = z.infer<typeof CandidateView>;

/** An instance DNS listed that discovery could not use, and the stage where it failed. */
export const FailedCandidate = z.object({
  instance: z.string(),
  endpoint: z.string().nullable(),
  stage: z.enum(['dns', 'address', 'card', 'health']),
  reason: z.string(),
  message: z.string(),
});
export type FailedCandidate = z.infer<typeof FailedCandidate>;

/** Where a capability's description comes from: the built-in catalog, config, its cards' skills, or nowhere. */
export const DescribedBy = z.enum(['builtin', 'config', 'card', 'none']);

/** A capability's text as planners and consoles read it. */
export const CatalogText = z.object({
  description: z.string(),
  described_by: DescribedBy,
  /** Card skill tags (without the capability id and the agents' domain). */
  tags: z.array(z.string()),
  /** Card skill examples. */
  examples: z.array(z.string()),
});
export type CatalogText = z.infer<typeof CatalogText>;

/** One capability's resolution over DNS, cards and health (what one discovery pass finds). */
export const CapabilityResolution = z.object({
  capability: z.string(),
  source: DiscoverySource,
  available: z.boolean(),
  reason: DiscoveryReason.nullable(),
  /** The DNS names asked, in order, up to the one that answered. */
  queries: z.array(z.string()),
  candidates: z.array(CandidateView),
  failed: z.array(FailedCandidate),
  /** DNS targets a run's discovery did not verify because enough others were healthy (absent: none). */
  unchecked: z.number().int().optional(),
});
export type CapabilityResolution = z.infer<typeof CapabilityResolution>;

/** One capability's slice of the index (seed 3.2 step 6) with its catalog text and providers. */
export const CapabilityView = CapabilityResolution.extend(CatalogText.shape).extend({
  /** One of the built-in seven. */
  builtin: z.boolean(),
  /** Listed in the DNS index (`_index._agents` TXT) by the last read of it. */
  in_index: z.boolean(),
  /** Agent names of the usable candidates. */
  providers: z.array(z.string()),
});
export type CapabilityView = z.infer<typeof CapabilityView>;

/** The DNS index read of a discovery: what it listed, or why it could not be read. */
export const IndexRead = z.object({
  name: z.string(),
  ok: z.boolean(),
  capabilities: z.array(z.string()),
  error: z.string().optional(),
});
export type IndexRead = z.infer<typeof IndexRead>;

/** Discovery counters (seed 3.2: srv_queries, card_fetches, card_cache_hits, card_failures, health_probes). */
export const DiscoveryStats = z.object({
  dns_queries: z.number().int(),
  dns_tcp_fallbacks: z.number().int(),
  card_fetches: z.number().int(),
  card_cache_hits: z.number().int(),
  card_negative_hits: z.number().int(),
  card_failures: z.number().int(),
  health_probes: z.number().int(),
});
export type DiscoveryStats = z.infer<typeof DiscoveryStats>;

/** `GET /api/discovery`: per capability view, this pass's counters and the process totals. */
export const DiscoveryView = z.object({
  zone: z.string(),
  dns_server: z.string(),
  discovered_at: z.string(),
  duration_ms: z.number(),
  strategy: z.literal('priority_then_weighted_random'),
  capabilities: z.record(z.string(), CapabilityView),
  /** The DNS index read; absent when discovery was asked for named capabilities only. */
  index: IndexRead.optional(),
  stats: DiscoveryStats,
  totals: DiscoveryStats,
});
export type DiscoveryView = z.infer<typeof DiscoveryView>;
