/** Capability discovery over DNS: SVCB, role SRV, generic SRV filtered by cards. */

export {
  BIND_POOL,
  type Binding,
  CapabilityIndex,
  type CapabilityIndexOptions,
  type Discovery,
  MAX_ALTERNATES,
} from './capability-index.js';
export { CardCache } from './card-cache.js';
export { type CardFetcher, cardDigest, type FetchedCard, httpCardFetcher } from './card-fetcher.js';
export * from './discovery-view.js';
export { type Health, type HealthCheck, HealthProber, httpHealthCheck } from './health-probe.js';
export { LiveCatalog, type LiveCatalogOptions } from './live-catalog.js';
export { orderCandidates, type Random, SELECTION_STRATEGY } from './selection.js';
