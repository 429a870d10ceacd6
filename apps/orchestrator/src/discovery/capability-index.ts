import { type Clock, systemClock } from '@agent-reach/sdk/clock';
import type { DnsClient, DnsResponse } from '@agent-reach/sdk/dns';
import { type CatalogEntry, DEFAULT_CATALOG_ENTRIES } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { type CatalogCapability, isBuiltinCapability } from '../plan/catalog.js';
import { CardCache } from './card-cache.js';
import { type CardFetcher, httpCardFetcher } from './card-fetcher.js';
import { DiscoveryPass, type DnsTargets } from './discovery-pass.js';
import {
  addStats,
  type Candidate,
  type CapabilityView,
  type DiscoveryReason,
  type DiscoveryStats,
  type DiscoveryView,
  emptyStats,
  type FailedCandidate,
  type IndexRead,
} from './discovery-view.js';
import { DnsAnswerCache } from './dns-answer-cache.js';
import { type HealthCheck, HealthProber, httpHealthCheck } from './health-probe.js';
import { LiveCatalog } from './live-catalog.js';
import { orderCandidates, type Random, SELECTION_STRATEGY } from './selection.js';

/** How the index reaches DNS and agents; every client is injectable. */
export interface CapabilityIndexOptions {
  dns: DnsClient;
  zone: string;
  /** `host:port` of the DNS server, shown in the view. */
  dnsServer: string;
  /** The capabilities always discovered (the built-in seven and config's); the DNS index adds the rest. */
  catalog: readonly string[];
  /** Descriptions that win over cards' (config's `catalog:`). @default DEFAULT_CATALOG_ENTRIES */
  entries?: readonly CatalogEntry[];
  /** How long a capability that left the DNS index stays known (planned as unavailable). @default 600000 */
  catalogRetentionMs?: number;
  clock?: Pick<Clock, 'now'>;
  random?: Random;
  fetchCard?: CardFetcher;
  checkHealth?: HealthCheck;
  /** @default 60000 */
  cardTtlMs?: number;
  /** @default 8000 */
  negativeTtlMs?: number;
  /** @default 2000 */
  healthReuseMs?: number;
  /** Longest a DNS answer is reused within its TTL; 0 asks DNS on every discovery. @default 5000 */
  dnsReuseMs?: number;
  /** Where ignored candidates (a card without skills) are logged, once per card. */
  logger?: Pick<Logger, 'warn'>;
}

/** Most alternates bound behind the primary (seed 3.4). */
export const MAX_ALTERNATES = 3;

/** How many healthy candidates per capability a run's discovery verifies: a primary and its alternates. */
export const BIND_POOL = 1 + MAX_ALTERNATES;

/** The result of one discovery: the view, the usable candidates per capability and the live catalog. */
export interface Discovery {
  view: DiscoveryView;
  candidates: ReadonlyMap<string, readonly Candidate[]>;
  /** Every capability discovered, with the text planners match against. */
  catalog: readonly CatalogCapability[];
}

/** How a node's capability was bound: a primary and up to three alternates, or why not. */
export type Binding =
  | {
      ok: true;
      capability: string;
      primary: Candidate;
      alternates: Candidate[];
      selection: {
        strategy: typeof SELECTION_STRATEGY;
        priority: number;
        weight: number;
        pool: number;
        source: string;
      };
    }
  | {
      ok: false;
      capability: string;
      reason: DiscoveryReason | 'capability_unavailable';
      failed: FailedCandidate[];
    };

/** The capability index: a projection of DNS and cards, rebuilt per discovery, never a list of agents. */
export class CapabilityIndex {
  private readonly cards: CardCache;
  private readonly health: HealthProber;
  private readonly answers: DnsAnswerCache;
  private readonly targetsByAnswer = new WeakMap<DnsResponse, DnsTargets>();
  private readonly clock: Pick<Clock, 'now'>;
  private readonly random: Random;
  private readonly totalStats = emptyStats();
  private last: DiscoveryView | null = null;
  private readonly catalog: LiveCatalog;
  // Cards already logged as ignored (endpoint and digest), so a pass every few seconds logs each once.
  private readonly ignoredCards = new Set<string>();

  constructor(private readonly options: CapabilityIndexOptions) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.cards = new CardCache(options.fetchCard ?? httpCardFetcher(), this.clock, {
      ttlMs: options.cardTtlMs,
      negativeTtlMs: options.negativeTtlMs,
    });
    this.catalog = new LiveCatalog({
      ids: options.catalog,
      entries: options.entries ?? DEFAULT_CATALOG_ENTRIES,
      ...(options.catalogRetentionMs === undefined ? {} : { retentionMs: options.catalogRetentionMs }),
    });
    this.answers = new DnsAnswerCache(this.clock, options.dnsReuseMs ?? 5000);
    this.health = new HealthProber(
      options.checkHealth ?? httpHealthCheck(),
      this.clock,
      options.healthReuseMs,
    );
  }

  /**
   * Resolves every catalog capability — the configured ones plus every one the DNS index lists — or
   * the given ones, concurrently; with `reuseDns` (a run's
   * discovery) DNS answers still within min(TTL, `dnsReuseMs`) are reused instead of asked again, and
   * with `enoughToBind` (a run's discovery) cards and /health are checked, in selection order, only
   * until `BIND_POOL` candidates per capability are healthy — the view (`GET /api/discovery`) checks all.
   */
  async discover(
    capabilities?: readonly string[],
    options: { reuseDns?: boolean; enoughToBind?: boolean } = {},
  ): Promise<Discovery> {
    const started = this.clock.now();
    const pass = new DiscoveryPass({
      dns: this.options.dns,
      zone: this.options.zone,
      cards: this.cards,
      health: this.health,
      answers: this.answers,
      reuseAnswers: options.reuseDns ?? false,
      healthyEnough: options.enoughToBind ? BIND_POOL : undefined,
      random: this.random,
      targetsByAnswer: this.targetsByAnswer,
      onIgnoredCard: (ignored) => this.logIgnored(ignored),
    });
    let index: IndexRead | undefined;
    let wanted = capabilities;
    if (wanted === undefined) {
      const listed = await pass.indexed();
      index = listed.ok
        ? { name: pass.indexName(), ok: true, capabilities: listed.value }
        : { name: pass.indexName(), ok: false, capabilities: [], error: listed.error.message };
      // An unreadable index keeps the last list: a DNS hiccup does not empty the catalog.
      if (listed.ok) this.catalog.listed(listed.value, this.clock.now());
      wanted = this.catalog.ids(this.clock.now());
    }
    const resolved = await Promise.all([...new Set(wanted)].map((cap) => pass.resolve(cap)));
    addStats(this.totalStats, pass.tally);
    const views = resolved.map(
      (r): CapabilityView => ({
        ...r.view,
        ...this.catalog.describe(r.view.capability, r.candidates),
        builtin: isBuiltinCapability(r.view.capability),
        in_index: this.catalog.inIndex(r.view.capability),
        providers: [...new Set(r.candidates.map((c) => c.agent_name))].sort(),
      }),
    );
    const view: DiscoveryView = {
      zone: this.options.zone,
      dns_server: this.options.dnsServer,
      discovered_at: new Date().toISOString(),
      duration_ms: Math.round((this.clock.now() - started) * 100) / 100,
      strategy: SELECTION_STRATEGY,
      capabilities: Object.fromEntries(views.map((v) => [v.capability, v])),
      ...(index === undefined ? {} : { index }),
      stats: { ...pass.tally },
      totals: { ...this.totalStats },
    };
    this.last = view;
    return {
      view,
      candidates: new Map(resolved.map((r) => [r.view.capability, r.candidates])),
      catalog: this.catalog.plannableOf(view.capabilities),
    };
  }

  /** Picks a primary and up to three alternates for `capability` from a discovery. */
  bind(discovery: Discovery, capability: string): Binding {
    const pool = discovery.candidates.get(capability) ?? [];
    const view = discovery.view.capabilities[capability];
    if (pool.length === 0) {
      return {
        ok: false,
        capability,
        reason: view?.reason ?? 'capability_unavailable',
        failed: view?.failed ?? [],
      };
    }
    const [primary, ...rest] = orderCandidates(pool, this.random);
    return {
      ok: true,
      capability,
      primary: primary!,
      alternates: rest.slice(0, MAX_ALTERNATES),
      selection: {
        strategy: SELECTION_STRATEGY,
        priority: primary!.priority,
        weight: primary!.weight,
        pool: pool.length,
        source: view?.source ?? 'none',
      },
    };
  }

  /** Runs a discovery and returns its view (seed 3.2 step 6: per capability and stats). */
  async discoveryView(): Promise<DiscoveryView> {
    return (await this.discover()).view;
  }

  /** The most recent discovery view, or null before the first. */
  lastView(): DiscoveryView | null {
    return this.last;
  }

  private logIgnored(ignored: FailedCandidate & { capability: string; card_sha256: string }): void {
    const key = `${ignored.endpoint} ${ignored.card_sha256}`;
    if (this.ignoredCards.has(key)) return;
    if (this.ignoredCards.size >= 10_000) this.ignoredCards.clear();
    this.ignoredCards.add(key);
    this.options.logger?.warn(
      {
        instance: ignored.instance,
        endpoint: ignored.endpoint,
        capability: ignored.capability,
        reason: ignored.reason,
      },
      ignored.message,
    );
  }

  /** Counters since the process started. */
  totals(): DiscoveryStats {
    return { ...this.totalStats };
  }
}
