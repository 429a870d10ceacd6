import { randomBytes } from 'node:crypto';
import type { Clock } from '@agent-reach/sdk/clock';
import type { Tracer } from '@opentelemetry/api';
import type { Hono } from 'hono';
import type { Logger } from 'pino';
import type { Registry as PromRegistry } from 'prom-client';
import type { TokenAuthority } from '../auth/token-authority.js';
import { RouteHistory } from '../governance/route-history.js';
import type { InstanceSource } from '../instances/instance-source.js';
import type { RegistryStore } from '../store/store.js';
import type { SkydnsTarget } from '../weights/instance-skydns.js';
import type { WeightOf } from '../weights/weight-of.js';
import { WeightPublisher } from '../weights/weight-publisher.js';
import type { WeightRoster } from '../weights/weight-roster.js';
import { WeightTable } from '../weights/weight-table.js';
import { ConflictReporter } from './conflict-report.js';
import { Router } from './router.js';
import type { RoutingLiveness } from './routing-liveness.js';
import { createRoutingRoutes } from './routing-routes.js';
import { settledChanges } from './settled-changes.js';
import type { DeclarationVersions } from './version-preference.js';

/** What routing is built from: the registry's parts (see `RegistryParts`) and its config. */
export interface RoutingServiceDeps {
  store: RegistryStore;
  instances: InstanceSource;
  liveness: RoutingLiveness;
  /** What the leader's weight pass walks (the registry's `LivenessTable`). @default the instances, each looked up in `liveness` */
  roster?: WeightRoster<unknown>;
  clock: Clock;
  logger: Logger;
  /** The registry's Prometheus registry (`RegistryMetrics.registry`). */
  metricsRegistry?: PromRegistry;
  /** Who may report outcomes (`POST /v1/outcomes`); without it outcomes are open. */
  authority?: Pick<TokenAuthority, 'authorizeOutcomes'>;
  /** Declaration versions: routing prefers verified versions and counts calls toward verification. */
  versions?: DeclarationVersions;
  /** Whether this replica leads (weights and the daily report are written by the leader only). */
  isLeader: () => boolean;
  /** This replica's name; with a random suffix it names this process's route-history keys. */
  replicaId: string;
  /** Opens a `reach.route` span per route query (when OTLP export is configured). */
  tracer?: Tracer;
  config: {
    /** `control_plane.warmup`. */
    warmupMs: number;
    /** `control_plane.route_cache_ttl`. */
    routeCacheTtlMs: number;
    /** Where SkyDNS messages are rewritten with published weights; none when the store gets no projection. */
    skydns?: SkydnsTarget;
    /** Most share of an instance's outcome evidence one authenticated caller may hold. */
    callerShare?: number;
    /** How long a removed instance's routing history is kept for a re-registration under its id. */
    keepHistoryMs?: number;
    /** @default 5000 */
    weightIntervalMs?: number;
    /** @default 60000 */
    reportIntervalMs?: number;
    /** The route history: how long it is kept and how often this replica writes it. */
    governance: { retentionMs: number; flushMs: number };
  };
}

/** The DNS zone's hooks for dynamic weights (the registry's `Zone` has both). */
export interface WeightedZone {
  setWeightOf(weightOf: WeightOf): void;
  weightsChanged(instanceIds?: readonly string[]): void;
}

/**
 * Routing as one component: the router and its API (available at once, for `RegistryOptions.routes`),
 * then `start()` for the parts that watch the store and run timers (weights, the daily report).
 */
export class RoutingService {
  readonly router: Router;
  readonly reporter: ConflictReporter;
  /** Hourly route and call counts per capability (the governance report's figures). */
  readonly history: RouteHistory;
  readonly routes: Hono;
  weights: WeightTable | undefined;
  private readonly stops: Array<() => void | Promise<void>> = [];

  constructor(private readonly deps: RoutingServiceDeps) {
    this.history = new RouteHistory({
      store: deps.store,
      clock: deps.clock,
      // A restarted process never overwrites its predecessor's totals for the same hour.
      writer: `${deps.replicaId.replace(/[^A-Za-z0-9_.-]/g, '_')}-${randomBytes(3).toString('hex')}`,
      logger: deps.logger,
    });
    this.router = new Router({
      history: this.history,
      source: deps.instances,
      clock: deps.clock,
      liveness: deps.liveness,
      warmupMs: deps.config.warmupMs,
      cacheTtlMs: deps.config.routeCacheTtlMs,
      ...(deps.config.callerShare === undefined ? {} : { callerShare: deps.config.callerShare }),
      ...(deps.config.keepHistoryMs === undefined ? {} : { keepHistoryMs: deps.config.keepHistoryMs }),
      ...(deps.metricsRegistry ? { metricsRegistry: deps.metricsRegistry } : {}),
      ...(deps.versions ? { versions: deps.versions } : {}),
      ...(deps.tracer ? { tracer: deps.tracer } : {}),
    });
    this.reporter = new ConflictReporter({
      book: this.router.conflicts,
      store: deps.store,
      clock: deps.clock,
      isLeader: deps.isLeader,
    });
    this.routes = createRoutingRoutes({
      router: this.router,
      reporter: this.reporter,
      ...(deps.authority ? { authority: deps.authority } : {}),
    });
  }

  /** Watches the published weights (plugging them into `zone`), and starts the leader's loops. */
  async start(zone?: WeightedZone): Promise<void> {
    const { deps } = this;
    const weights = await WeightTable.start(deps.store, deps.instances);
    this.weights = weights;
    if (zone) {
      zone.setWeightOf(weights.weightOf);
      // A weight pass arrives as several watch batches; the zone hears of them as one change.
      const settled = settledChanges(deps.clock, (ids) => zone.weightsChanged(ids));
      this.stops.push(
        weights.subscribe((ids) => settled.add(ids)),
        () => settled.close(),
      );
    }
    const publisher = new WeightPublisher({
      store: deps.store,
      source: deps.instances,
      router: this.router,
      table: weights,
      clock: deps.clock,
      isLeader: deps.isLeader,
      ...(deps.roster ? { roster: deps.roster } : {}),
      ...(deps.config.skydns ? { skydns: deps.config.skydns } : {}),
    });
    const log = (what: string) => (error: unknown) => deps.logger.error({ err: error }, `${what} failed`);
    this.stops.push(publisher.start(deps.config.weightIntervalMs ?? 5000, log('weight publication')));
    this.stops.push(this.reporter.start(deps.config.reportIntervalMs ?? 60_000, log('conflict report')));
    this.stops.push(
      this.history.start({
        flushMs: deps.config.governance.flushMs,
        retentionMs: deps.config.governance.retentionMs,
        isLeader: deps.isLeader,
        onError: log('route history'),
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.stops.splice(0).map((stop) => stop()));
    this.router.close();
    await this.weights?.close();
  }
}
