import { join } from 'node:path';
import { type ConnectionLimits, connectionLimitsOf, loadConfig, type ReachConfig } from '@agent-reach/config';
import {
  type CatalogEntry,
  DEFAULT_CATALOG_ENTRIES,
  ReachError,
  splitHostPort,
} from '@agent-reach/sdk/protocol';
import type { ProviderSettings } from './planner/index.js';
import { compileTelemetryOptions, type TelemetryOptions } from './telemetry/index.js';

/** Everything the orchestrator needs, compiled once at start; nothing else reads the environment. */
export interface OrchestratorConfig {
  listen: { host: string; port: number };
  zone: string;
  /** The DNS server discovery asks (`dns.server`). */
  dnsServer: { host: string; port: number };
  /** The built-in seven plus `catalog` from the file. */
  catalog: CatalogEntry[];
  /** Postgres URL (`DATABASE_URL` or `orchestrator.database_url`); null means PGlite under `pglitePath`. */
  databaseUrl: string | null;
  /** @default `<storage.path>/orchestrator-traces` */
  pglitePath: string;
  /** Bearer token mutating routes need; null means they are open (loopback default). */
  apiToken: string | null;
  /** Registry that gets the outcome of every agent call (`orchestrator.registry_url`); null: none. */
  registryUrl: string | null;
  /** Bearer token (`report_outcomes` right) for the registry's outcome API; null: none sent. */
  registryToken: string | null;
  /** Idle/header timeouts, connection cap and keep-alive limit of the API server. */
  connections: ConnectionLimits;
  /** A running trace with no event for this long is aborted. @default 300000 */
  staleAfterMs: number;
  /** How often stale traces are reaped. @default 60000 */
  reapIntervalMs: number;
  /** A run's lease lasts this long past its owner's last renewal. @default 5000 */
  leaseTtlMs: number;
  /** How often runs whose lease lapsed are looked for and taken over. @default 1000 */
  takeoverIntervalMs: number;
  providers: ProviderSettings[];
  /** The env record providers read `api_key_env` from. */
  env: Readonly<Record<string, string | undefined>>;
  telemetry: TelemetryOptions;
  /** The call path's timeouts (`agent_sdk`). */
  call: {
    connectTimeoutMs: number;
    ackTimeoutMs: number;
    executionTimeoutMs: number;
    retryBudgetRatio: number;
  };
  discovery: {
    cardTtlMs: number;
    negativeTtlMs: number;
    cardMaxBytes: number;
    cardTimeoutMs: number;
    healthTimeoutMs: number;
  };
  /** Largest API request body. @default 262144 */
  maxBodyBytes: number;
  /** pino level from `LOG_LEVEL`. @default 'info' */
  logLevel: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function invalid(key: string, message: string): ReachError {
  return new ReachError('INVALID_CONFIG', `invalid config: ${key}: ${message}`, { data: { key } });
}

function checkPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'postgres:' || parsed.protocol === 'postgresql:') return url;
  } catch {}
  throw invalid('orchestrator.database_url', 'must be a postgres:// URL');
}

function logLevel(value: string | undefined): string {
  const level = (value ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw invalid('LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`);
  return level;
}

/** Turns a parsed config into the orchestrator's options; throws INVALID_CONFIG naming the key. */
export function compileOrchestratorConfig(
  reach: ReachConfig,
  env: Readonly<Record<string, string | undefined>> = {},
): OrchestratorConfig {
  const o = reach.orchestrator;
  const ids = new Set(DEFAULT_CATALOG_ENTRIES.map((c) => c.id));
  for (const [i, extra] of reach.catalog.entries()) {
    if (ids.has(extra.id)) throw invalid(`catalog.${i}.id`, `${extra.id} is already in the catalog`);
    ids.add(extra.id);
  }
  const names = new Set<string>();
  for (const [i, p] of o.providers.entries()) {
    if (names.has(p.name)) throw invalid(`orchestrator.providers.${i}.name`, `duplicate provider ${p.name}`);
    names.add(p.name);
  }
  if (o.stale_after < 10_000) throw invalid('orchestrator.stale_after', 'at least 10s');
  if (o.lease_ttl < 300) throw invalid('orchestrator.lease_ttl', 'at least 300ms');
  if (o.lease_ttl * 2 > o.stale_after) throw invalid('orchestrator.lease_ttl', 'at most half of stale_after');
  if (o.takeover_interval < 50 || o.takeover_interval > o.lease_ttl)
    throw invalid('orchestrator.takeover_interval', 'between 50ms and lease_ttl');
  return {
    listen: splitHostPort(o.listen),
    zone: reach.dns.zone,
    dnsServer: splitHostPort(reach.dns.server),
    catalog: [...DEFAULT_CATALOG_ENTRIES, ...reach.catalog],
    databaseUrl: o.database_url ? checkPostgresUrl(o.database_url) : null,
    pglitePath: join(reach.storage.path, 'orchestrator-traces'),
    apiToken: o.api_token ?? null,
    registryUrl: o.registry_url?.replace(/\/+$/, '') ?? null,
    registryToken: o.registry_token ?? null,
    connections: connectionLimitsOf(o.connections),
    staleAfterMs: o.stale_after,
    reapIntervalMs: Math.min(60_000, o.stale_after),
    leaseTtlMs: o.lease_ttl,
    takeoverIntervalMs: o.takeover_interval,
    providers: o.providers,
    env,
    telemetry: compileTelemetryOptions(env),
    call: {
      connectTimeoutMs: reach.agent_sdk.connection_timeout_ms,
      ackTimeoutMs: reach.agent_sdk.response_timeout_ms,
      executionTimeoutMs: reach.agent_sdk.execution_timeout_ms,
      retryBudgetRatio: reach.agent_sdk.retry_budget_ratio,
    },
    discovery: {
      cardTtlMs: 60_000,
      negativeTtlMs: 8000,
      cardMaxBytes: 65_536,
      cardTimeoutMs: 1500,
      healthTimeoutMs: 800,
    },
    maxBodyBytes: 262_144,
    logLevel: logLevel(env.LOG_LEVEL),
  };
}

/** Loads the YAML config (`REACH_CONFIG` or `text`) with env overrides and compiles it. */
export function loadOrchestratorConfig(
  env: Readonly<Record<string, string | undefined>>,
  text?: string,
): OrchestratorConfig {
  return compileOrchestratorConfig(loadConfig({ ...env }, text), env);
}
