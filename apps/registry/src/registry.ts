import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '@agent-reach/sdk/clock';
import type { Tracer } from '@opentelemetry/api';
import type { Hono } from 'hono';
import { type Logger, pino } from 'pino';
import { createApp } from './api/create-app.js';
import { TokenAuthority } from './auth/token-authority.js';
import type { RegistryConfig } from './config.js';
import { createRegistryZone, createZoneRoutes, type Zone } from './dns/index.js';
import { type CardFetch, ExternalAgents, externalRoutes, httpCardFetch } from './external/index.js';
import { createGovernanceRoutes, ReportReader } from './governance/index.js';
import { RequestPolicy } from './http/request-policy.js';
import { InstanceCache } from './instances/instance-cache.js';
import { bindLivenessToInstances } from './liveness/bind-cache.js';
import { httpInstanceProber, type InstanceProber } from './liveness/instance-prober.js';
import { LivenessTable } from './liveness/liveness-table.js';
import { SharedFacts } from './liveness/shared-facts.js';
import { StormGuard } from './liveness/storm-guard.js';
import { Sweeper } from './liveness/sweeper.js';
import { RegistryMetrics } from './metrics/registry-metrics.js';
import {
  createRegistrationVerbs,
  DeclarationLog,
  InstanceIdentities,
  NameOwners,
  type RegistrationVerbs,
} from './registration/index.js';
import { RoutingService, toConflictView } from './routing/index.js';
import { nameServerSkydnsEntry, removeSkydnsProjection } from './skydns/index.js';
import { KEYS } from './store/keys.js';
import type { RegistryStore } from './store/store.js';
import { skydnsTargetOf } from './weights/index.js';

/** How to build a registry; only `config` and `store` are required. */
export interface RegistryOptions {
  config: RegistryConfig;
  /** An open store; the registry never closes it (its opener does). */
  store: RegistryStore;
  /** @default systemClock */
  clock?: Clock;
  /** @default pino at level info */
  logger?: Logger;
  /** This replica's name in the leader election. @default `registry-<pid>-<random>` */
  replicaId?: string;
  /** Extra routers built from the registry's parts (e.g. `GET /v1/zone`, `POST /v1/route`), mounted at `/`. */
  routes?: (parts: RegistryParts) => Hono[];
  /** How storm protection checks silent instances. @default `GET /health` at their endpoint */
  prober?: InstanceProber;
  /** Whether to join the leader election and sweep (storm protection). @default true */
  sweep?: boolean;
  /** Whether `/metrics` includes the process's default metrics (off in tests that build many registries). @default false */
  processMetrics?: boolean;
  /** How external agents' cards are fetched (registration and probes). @default httpCardFetch */
  fetchCard?: CardFetch;
  /** Spans for `register` and `route` (`reach.register`, `reach.route`); main passes one when OTLP export is configured. */
  tracer?: Tracer;
  /**
   * Whether accepted heartbeats are shared with other replicas through the store (`SharedFacts`).
   * @default `store.externalReaders`: no other process reads an embedded store (its journal is locked
   * to one), so there is no replica to share with, and at 100,000 instances each heartbeat would
   * cost a fact written for nobody. Tests that run several replicas on one in-process store pass true.
   */
  shareLiveness?: boolean;
}

/** The registry's parts, for other components that mount on it (DNS, routing) and for tests. */
export interface RegistryParts {
  config: RegistryConfig;
  store: RegistryStore;
  clock: Clock;
  logger: Logger;
  /** The live registrations from the store's watch: an `InstanceSource`. */
  instances: InstanceCache;
  /** Liveness (seq, load, state) from this replica's heartbeats and every replica's shared facts; `liveness.snapshot(id)` fits routing's `RoutingLiveness`. */
  liveness: LivenessTable;
  /** Shares accepted heartbeats with the other replicas through the store; none without other replicas (`shareLiveness`). */
  facts: SharedFacts | undefined;
  metrics: RegistryMetrics;
  verbs: RegistrationVerbs;
  /** Declaration versions: history, verification, routing preference (`allHistory()` for reports). */
  declarations: DeclarationLog;
  storm: StormGuard;
  sweeper: Sweeper;
  /** The live DNS zone built from `instances`; `zone.setWeightOf` publishes dynamic weights. */
  zone: Zone;
}

/** A built registry: its parts, its hono app (not listening) and a way to stop it. */
export interface Registry extends RegistryParts {
  app: Hono;
  /** The body limit and request metrics the app and the node:http fast paths both apply. */
  policy: RequestPolicy;
  /** Routing: `POST /v1/route`, outcomes, conflicts, dynamic DNS weights. */
  routing: RoutingService;
  /** Stops the sweeper (resigning leadership) and the watch; leaves the store open. */
  close(): Promise<void>;
}

async function storeReachable(store: RegistryStore, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = store.get(KEYS.instance('readyz-probe')).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Builds a registry on an open store: primes the watch cache, wires liveness, verbs, sweeper and the app. */
export async function createRegistry(options: RegistryOptions): Promise<Registry> {
  const { config, store } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ name: 'registry' });
  const replicaId = options.replicaId ?? `registry-${process.pid}-${randomBytes(3).toString('hex')}`;

  const instances = await InstanceCache.start(store, logger);
  const liveness = new LivenessTable(clock, config.heartbeatIntervalMs + config.suspectGraceMs);
  const unbind = bindLivenessToInstances(liveness, instances);
  const facts =
    (options.shareLiveness ?? store.externalReaders)
      ? await SharedFacts.start({
          store,
          table: liveness,
          clock,
          logger,
          replicaId,
          flushMs: Math.max(50, Math.min(1000, Math.round(config.heartbeatIntervalMs / 5))),
          leaseTtlMs: config.heartbeatTimeoutMs,
        })
      : undefined;
  let sweeper: Sweeper | undefined;
  const metrics = new RegistryMetrics(
    () => liveness.counts(),
    () => sweeper?.isLeader ?? false,
    options.processMetrics ?? false,
  );
  const authority = new TokenAuthority(config.tokens);
  // Written only where CoreDNS's etcd plugin can read it (or as `dns.skydns_projection` says).
  const skydns = skydnsTargetOf(config, store);
  const identities = new InstanceIdentities(store, logger);
  // Identities loaded from before a restart are held as objects again, as registrations put them.
  for (const record of instances.all()) identities.holdLoaded(record);
  const declarations = await DeclarationLog.start({
    store,
    logger,
    clock,
    replicaId,
    verifyAfterCalls: config.declarations.verifyAfterCalls,
  });
  const verbs = createRegistrationVerbs({
    config,
    store,
    ...(skydns ? { skydns } : {}),
    instances,
    table: liveness,
    ...(facts ? { facts } : {}),
    authority,
    declarations,
    owners: new NameOwners(store),
    identities,
    metrics,
    clock,
    logger,
    ...(options.tracer ? { tracer: options.tracer } : {}),
  });
  const storm = new StormGuard({
    table: liveness,
    store,
    clock,
    metrics,
    logger,
    config,
    prober: options.prober ?? httpInstanceProber({ timeoutMs: config.storm.probeTimeoutMs }),
  });
  sweeper = new Sweeper({
    store,
    clock,
    guard: storm,
    table: liveness,
    logger,
    replicaId,
    tickMs: Math.max(50, Math.round(config.heartbeatIntervalMs / 5)),
  });
  const zone = createRegistryZone(instances, config, logger);
  const parts: RegistryParts = {
    config,
    store,
    clock,
    logger,
    instances,
    liveness,
    facts,
    metrics,
    verbs,
    declarations,
    storm,
    sweeper,
    zone,
  };
  const cp = config.reach.control_plane;
  const routing = new RoutingService({
    store,
    instances,
    liveness,
    roster: liveness,
    clock,
    logger,
    metricsRegistry: metrics.registry,
    versions: declarations,
    isLeader: () => sweeper.isLeader,
    replicaId,
    authority,
    ...(options.tracer ? { tracer: options.tracer } : {}),
    config: {
      governance: config.governance,
      callerShare: config.outcomeCallerShare,
      keepHistoryMs: config.instanceIdRetentionMs,
      warmupMs: cp.warmup,
      routeCacheTtlMs: cp.route_cache_ttl,
      ...(skydns ? { skydns } : {}),
    },
  });
  /** Stops what runs from here on, latest first (also on a failed start). */
  const closeRunningParts = async (): Promise<void> => {
    await sweeper.stop();
    await routing.close();
    await facts?.close();
    await declarations.close();
    unbind();
    zone.close();
    await instances.close();
  };
  try {
    if (skydns) {
      // CoreDNS's apex NS comes from this key: without it, its NS answer names nothing that exists.
      const ns = await nameServerSkydnsEntry(config.reach, skydns.ttlSec);
      if (ns !== undefined) await store.commit({ puts: [ns] });
    } else {
      // A projection written before (an older embedded journal) has no reader and would only be carried.
      const removed = await removeSkydnsProjection(store, config.zone);
      if (removed > 0) logger.info({ removed }, 'removed SkyDNS keys: this store gets no SkyDNS projection');
    }
    if (options.sweep !== false) await sweeper.start();
    await routing.start(zone);
  } catch (error) {
    await closeRunningParts();
    throw error;
  }
  const external = new ExternalAgents({
    verbs,
    authority,
    fetchCard: options.fetchCard ?? httpCardFetch,
    clock,
    logger,
    probeIntervalMs: config.heartbeatIntervalMs,
    limits: { timeoutMs: 3000, maxBytes: 256 * 1024 },
  });
  const policy = new RequestPolicy(metrics, config.maxBodyBytes);
  const app = createApp({
    verbs,
    metrics,
    logger,
    policy,
    readiness: async () => ({
      watch_primed: instances.primed,
      store_reachable: await storeReachable(store, 2000),
    }),
    routes: [
      ...(options.routes?.(parts) ?? []),
      createZoneRoutes(zone),
      routing.routes,
      createGovernanceRoutes(
        new ReportReader({
          history: routing.history,
          declarations,
          conflictReports: routing.reporter,
          liveConflicts: () => routing.router.conflicts.list().map(toConflictView),
          liveVersions: () => {
            const live = new Map<string, number>();
            for (const record of instances.all()) {
              const key = `${record.agent_name}/${record.declaration.version}`;
              live.set(key, (live.get(key) ?? 0) + 1);
            }
            return live;
          },
          verifyAfterCalls: config.declarations.verifyAfterCalls,
          clock,
          retentionMs: config.governance.retentionMs,
        }),
      ),
      externalRoutes(external),
    ],
  });
  // The leader forgets instance ids whose instance stayed gone past the retention.
  // A pass still running is not joined by another: at 100,000 identities on a slow etcd, one pass
  // can outlast the interval, and overlapping passes only add to the load that slowed it.
  let collecting = false;
  const stopCollecting = clock.every(Math.min(60_000, config.instanceIdRetentionMs), () => {
    if (!sweeper.isLeader || collecting) return;
    collecting = true;
    identities
      .collect((id) => instances.get(id) !== undefined, clock.now(), config.instanceIdRetentionMs)
      .catch((cause: unknown) => logger.warn({ err: cause }, 'instance identity collection failed'))
      .finally(() => {
        collecting = false;
      });
  });
  // The leader removes declaration versions older than the retention that nothing runs or prefers.
  const stopPruning = clock.every(Math.min(3_600_000, config.declarations.keepHistoryMs), () => {
    if (!sweeper.isLeader) return;
    const live = new Set(instances.all().map((r) => `${r.agent_name}/${r.declaration.version}`));
    declarations
      .collect(
        (agent, version) => live.has(`${agent}/${version}`),
        clock.wallNow(),
        config.declarations.keepHistoryMs,
      )
      .catch((cause: unknown) => logger.warn({ err: cause }, 'declaration history collection failed'));
  });
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      stopCollecting();
      stopPruning();
      external.close();
      await closeRunningParts();
    })();
    return closed;
  };
  return { ...parts, app, policy, routing, close };
}
