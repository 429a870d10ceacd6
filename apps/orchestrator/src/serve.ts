import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { OutcomeReporter, RetryBudget } from '@agent-reach/sdk/client';
import { systemClock } from '@agent-reach/sdk/clock';
import { UdpDnsClient } from '@agent-reach/sdk/dns';
import { connectionServerOptions, guardConnections } from '@agent-reach/sdk/node';
import { createAdaptorServer } from '@hono/node-server';
import { trace } from '@opentelemetry/api';
import { type Logger, pino } from 'pino';
import { createApp, OrchestratorMetrics } from './api/index.js';
import type { OrchestratorConfig } from './config.js';
import { CapabilityIndex, httpCardFetcher, httpHealthCheck } from './discovery/index.js';
import { sdkCallAttempt } from './execution/index.js';
import { Orchestrator } from './orchestrator.js';
import { RunOwnership } from './ownership/index.js';
import { Planner } from './planner/index.js';
import { type Telemetry, TRACER_NAME } from './telemetry/index.js';
import {
  openPgliteTraceStore,
  openPostgresTraceStore,
  startStaleReaper,
  type TraceStore,
} from './traces/index.js';

/** An orchestrator serving its API. */
export interface RunningOrchestrator {
  /** `http://host:port` of the API. */
  url: string;
  port: number;
  orchestrator: Orchestrator;
  store: TraceStore;
  index: CapabilityIndex;
  /** Its name in run leases. */
  owner: string;
  /** Stops taking runs, hands the running ones over, closes the server and the store. */
  stop(): Promise<void>;
}

/** What `startOrchestrator` may be given besides the config. */
export interface StartOptions {
  /** The running OTel SDK (main starts it); without one spans go to the global API's provider. */
  telemetry?: Telemetry;
  logger?: Logger;
  /** Use this store instead of opening one from the config (tests). */
  store?: TraceStore;
  /** Serve here instead of `orchestrator.listen` (port 0 picks a free one). */
  listen?: { host: string; port: number };
  /** Who this orchestrator is in run leases. @default `<hostname>/<pid>/<random>` */
  owner?: string;
}

async function openStore(config: OrchestratorConfig): Promise<TraceStore> {
  if (config.databaseUrl !== null) return openPostgresTraceStore({ url: config.databaseUrl });
  await mkdir(config.pglitePath, { recursive: true });
  return openPgliteTraceStore({ dataDir: config.pglitePath });
}

/** Builds the orchestrator from its config (store, DNS index, planner, call path) and serves the API. */
export async function startOrchestrator(
  config: OrchestratorConfig,
  options: StartOptions = {},
): Promise<RunningOrchestrator> {
  const logger = options.logger ?? pino({ name: 'orchestrator' });
  const owner = options.owner ?? `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  const store = options.store ?? (await openStore(config));
  const metrics = new OrchestratorMetrics(true);
  const reaper = startStaleReaper(store, {
    staleAfterMs: config.staleAfterMs,
    intervalMs: config.reapIntervalMs,
    onReaped: (ids) => {
      metrics.reaped.inc(ids.length);
      logger.warn({ traces: ids }, 'aborted stale running traces');
    },
    onError: (error) => logger.error({ err: error }, 'stale trace sweep failed'),
  });
  await reaper.ready;
  const dnsServer = `${config.dnsServer.host}:${config.dnsServer.port}`;
  const index = new CapabilityIndex({
    dns: new UdpDnsClient(config.dnsServer),
    zone: config.zone,
    dnsServer,
    catalog: config.catalog.map((c) => c.id),
    entries: config.catalog,
    fetchCard: httpCardFetcher({
      timeoutMs: config.discovery.cardTimeoutMs,
      maxBytes: config.discovery.cardMaxBytes,
    }),
    checkHealth: httpHealthCheck(config.discovery.healthTimeoutMs),
    cardTtlMs: config.discovery.cardTtlMs,
    negativeTtlMs: config.discovery.negativeTtlMs,
    logger,
  });
  const calls = sdkCallAttempt(config.call);
  // Outcomes go to the registry as ReachClient's do, so routing's health window sees orchestrated calls.
  const outcomes =
    config.registryUrl === null
      ? undefined
      : new OutcomeReporter({
          registryUrl: config.registryUrl,
          token: config.registryToken ?? undefined,
          fetch,
          clock: systemClock,
        });
  const orchestrator = new Orchestrator({
    store,
    index,
    planner: new Planner({ providers: config.providers, env: config.env, catalog: config.catalog }),
    call: calls.call,
    tracer: options.telemetry?.tracer ?? trace.getTracer(TRACER_NAME),
    providers: config.providers.map((p) => p.name),
    executionTimeoutMs: config.call.executionTimeoutMs,
    budget: new RetryBudget(
      { ratio: config.call.retryBudgetRatio, minPerSecond: 3, maxTokens: 10 },
      systemClock,
    ),
    metrics,
    ...(outcomes === undefined ? {} : { outcomes }),
    onError: (error, traceId) => logger.error({ err: error, traceId }, 'run failed unexpectedly'),
    ownership: { owner, leaseTtlMs: config.leaseTtlMs },
  });
  // Runs are owned through the store: renewed here, taken over from owners that stopped renewing.
  const ownership = new RunOwnership(store, orchestrator, {
    owner,
    leaseTtlMs: config.leaseTtlMs,
    scanEveryMs: config.takeoverIntervalMs,
    onError: (error, step) => logger.error({ err: error, step }, 'run ownership step failed'),
  });
  let stopping = false;
  const app = createApp({
    orchestrator,
    store,
    metrics,
    apiToken: config.apiToken,
    maxBodyBytes: config.maxBodyBytes,
    ready: async () => !stopping && (await store.listTraces({ limit: 1 }).then(() => true)),
    log: (fields, message) => logger.error(fields, message),
  });
  const { host, port } = options.listen ?? config.listen;
  const server = createAdaptorServer({
    fetch: app.fetch,
    hostname: host,
    serverOptions: connectionServerOptions(config.connections),
  }) as Server;
  metrics.watchConnections(guardConnections(server, config.connections));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    reaper.stop();
    await ownership.stop();
    calls.close();
    await outcomes?.close();
    if (options.store === undefined) await store.close();
    throw error;
  }
  // Runs left by a previous process (or by a stopped peer) are taken over once the API is up.
  void ownership.start();
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stopping = true;
      reaper.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // No more takeovers; then every run is handed over (released at once for another orchestrator).
      await ownership.stop();
      await orchestrator.stop();
      // SSE streams of finished runs end by themselves; whatever is left is cut.
      server.closeAllConnections();
      await closed;
      calls.close();
      await outcomes?.close();
      if (options.store === undefined) await store.close();
    })();
    return stopped;
  };
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    orchestrator,
    store,
    index,
    owner,
    stop,
  };
}
