import {
  type ConnectionLimits,
  connectionLimitsOf,
  loadConfig,
  ReachConfig,
  type ReachConfigInput,
  type TokenRight,
} from '@agent-reach/config';
import { DEFAULT_CATALOG, ReachError, splitHostPort } from '@agent-reach/sdk/protocol';
import { compileTelemetryOptions, type TelemetryOptions } from '@agent-reach/sdk/telemetry';

/** A bearer token with its rights and the capability and agent-name patterns it may register. */
export interface ResolvedToken {
  name: string;
  token: string;
  capabilities: string[];
  /** @default ['*'] */
  agentNames?: string[];
  /** @default ['register', 'report_outcomes'] */
  rights?: TokenRight[];
}

/** Everything the registry needs from the config file, compiled once at start. */
export interface RegistryConfig {
  /** The whole parsed config, for parts (DNS, routing) that read their own sections. */
  reach: ReachConfig;
  listen: { host: string; port: number };
  zone: string;
  /** @default 5000 */
  heartbeatIntervalMs: number;
  /** No heartbeat for this long and the leader evicts the instance (revokes its lease). @default 15000 */
  heartbeatTimeoutMs: number;
  /**
   * TTL of each instance's lease: the dead-man switch that removes its records when no registry replica
   * refreshes the lease (every replica gone), not its liveness deadline. @default 8 × heartbeatTimeoutMs
   */
  leaseTtlMs: number;
  /**
   * A heartbeat (or a storm hold) refreshes the lease only when this replica's last refresh of it is
   * older than this: half the time the lease outlives heartbeat_timeout, `(leaseTtlMs − heartbeatTimeoutMs) / 2`.
   */
  leaseRefreshMs: number;
  /** Slack after a missed interval before an instance counts as suspect: half an interval, at least 250 ms. */
  suspectGraceMs: number;
  /** @default 262144 */
  maxBodyBytes: number;
  /** Empty means registration is open. */
  tokens: ResolvedToken[];
  /** Catalog capability ids an operation may `serve`: the built-in seven plus config.catalog. */
  catalog: ReadonlySet<string>;
  storm: {
    threshold: number;
    minInstances: number;
    holdMs: number;
    maxEvictionsPerInterval: number;
    /** How long a probe of a silent instance may take before its verdict is "unknown". @default 1000 */
    probeTimeoutMs: number;
  };
  /** The password of `storage.etcd.username`, from the variable `storage.etcd.password_env` names. */
  etcdPassword?: string;
  /** pino level from `LOG_LEVEL`. @default 'info' */
  logLevel: LogLevel;
  /** Idle/header timeouts, connection cap and keep-alive limit of the HTTP server. */
  connections: ConnectionLimits;
  /** How long an instance id is kept for its agent after its lease ran out. @default 900000 */
  instanceIdRetentionMs: number;
  /** Most share of an instance's outcome evidence one authenticated caller may hold. @default 0.5 */
  outcomeCallerShare: number;
  /** Where spans go, from the standard `OTEL_*` variables (service `agent-reach-registry`). */
  telemetry: TelemetryOptions;
  declarations: {
    /** Successful calls that verify a declaration version; 0: only an operator verifies. @default 20 */
    verifyAfterCalls: number;
    /** How long declaration history entries are kept (newest, newest verified and live versions always). @default 90 days */
    keepHistoryMs: number;
  };
  /** The governance report's route history. */
  governance: {
    /** How long hourly buckets are kept; the longest report window. @default 2592000000 (30 d) */
    retentionMs: number;
    /** How often this replica writes its changed buckets. @default 30000 */
    flushMs: number;
  };
}

/**
 * The default lease TTL in heartbeat timeouts: 120 s at the defaults, a refresh window of 52.5 s, so one
 * keep-alive in eleven 5 s heartbeats. At 100,000 instances that is ~1,800 keep-alives/s, about half of
 * what etcd 3.4 serves at that lease count (3,421/s raw, docs/benchmarks.md); four timeouts (60 s, one
 * in five: 4,000/s) would exceed it. The price: if every registry replica is gone, records outlive their
 * agents by 67.5 to 120 s, and live agents stay resolvable as long.
 */
const LEASE_TTL_TIMEOUTS = 8;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** A pino log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

function logLevelOf(env: Record<string, string | undefined>): LogLevel {
  const level = env.LOG_LEVEL ?? 'info';
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  throw new ReachError('INVALID_CONFIG', `invalid config: LOG_LEVEL: one of ${LOG_LEVELS.join(', ')}`, {
    data: { key: 'LOG_LEVEL' },
  });
}

function resolveTokens(config: ReachConfig, env: Record<string, string | undefined>): ResolvedToken[] {
  const seen = new Set<string>();
  return config.control_plane.tokens.map((grant, index) => {
    const token = grant.token ?? (grant.token_env ? env[grant.token_env] : undefined);
    const key = `control_plane.tokens.${index}`;
    if (token === undefined || token.length < 8) {
      throw new ReachError(
        'INVALID_CONFIG',
        `invalid config: ${key}: token_env ${grant.token_env} is not set or shorter than 8 characters`,
        { data: { key } },
      );
    }
    if (seen.has(token)) {
      throw new ReachError('INVALID_CONFIG', `invalid config: ${key}: the same token is configured twice`, {
        data: { key },
      });
    }
    seen.add(token);
    return {
      name: grant.name,
      token,
      capabilities: grant.capabilities,
      agentNames: grant.agent_names,
      rights: grant.rights,
    };
  });
}

/** Turns a parsed config into the registry's options; throws INVALID_CONFIG naming the key. */
export function compileRegistryConfig(
  reach: ReachConfig,
  env: Record<string, string | undefined> = {},
): RegistryConfig {
  const cp = reach.control_plane;
  if (cp.heartbeat_interval < 100) {
    throw new ReachError(
      'INVALID_CONFIG',
      'invalid config: control_plane.heartbeat_interval: at least 100ms',
      {
        data: { key: 'control_plane.heartbeat_interval' },
      },
    );
  }
  if (cp.heartbeat_timeout < 2 * cp.heartbeat_interval) {
    throw new ReachError(
      'INVALID_CONFIG',
      'invalid config: control_plane.heartbeat_timeout: must be at least twice heartbeat_interval',
      { data: { key: 'control_plane.heartbeat_timeout' } },
    );
  }
  const leaseTtlMs = cp.lease_ttl ?? LEASE_TTL_TIMEOUTS * cp.heartbeat_timeout;
  // The lease must outlive the leader's deadline by a refresh window of at least one interval.
  if (leaseTtlMs < cp.heartbeat_timeout + 2 * cp.heartbeat_interval) {
    throw new ReachError(
      'INVALID_CONFIG',
      'invalid config: control_plane.lease_ttl: must be at least heartbeat_timeout + 2 × heartbeat_interval',
      { data: { key: 'control_plane.lease_ttl' } },
    );
  }
  let listen: { host: string; port: number };
  try {
    listen = splitHostPort(cp.listen);
  } catch (cause) {
    throw new ReachError(
      'INVALID_CONFIG',
      `invalid config: control_plane.listen: ${(cause as Error).message}`,
      {
        data: { key: 'control_plane.listen' },
        cause,
      },
    );
  }
  return {
    reach,
    listen,
    zone: reach.dns.zone,
    heartbeatIntervalMs: cp.heartbeat_interval,
    heartbeatTimeoutMs: cp.heartbeat_timeout,
    leaseTtlMs,
    leaseRefreshMs: Math.floor((leaseTtlMs - cp.heartbeat_timeout) / 2),
    suspectGraceMs: Math.max(250, Math.round(cp.heartbeat_interval * 0.5)),
    maxBodyBytes: cp.max_body_bytes,
    tokens: resolveTokens(reach, env),
    catalog: new Set<string>([...DEFAULT_CATALOG, ...reach.catalog.map((entry) => entry.id)]),
    storm: {
      threshold: cp.storm.threshold,
      minInstances: cp.storm.min_instances,
      holdMs: cp.storm.hold,
      maxEvictionsPerInterval: cp.storm.max_evictions_per_interval,
      probeTimeoutMs: cp.storm.probe_timeout,
    },
    logLevel: logLevelOf(env),
    ...etcdPasswordOf(reach, env),
    connections: connectionLimitsOf(cp.connections),
    outcomeCallerShare: cp.outcomes.caller_share,
    instanceIdRetentionMs: cp.keep_instance_id,
    telemetry: compileTelemetryOptions(env, 'agent-reach-registry'),
    declarations: {
      verifyAfterCalls: cp.declarations.verify_after_calls,
      keepHistoryMs: cp.declarations.keep_history,
    },
    governance: { retentionMs: cp.governance.retention, flushMs: cp.governance.flush_interval },
  };
}

function etcdPasswordOf(
  reach: ReachConfig,
  env: Record<string, string | undefined>,
): { etcdPassword?: string } {
  const name = reach.storage.etcd.password_env;
  if (name === undefined || reach.storage.type !== 'etcd') return {};
  const password = env[name];
  if (password === undefined || password === '') {
    throw new ReachError(
      'INVALID_CONFIG',
      `invalid config: storage.etcd.password_env: the variable ${name} is not set`,
      { data: { key: 'storage.etcd.password_env' } },
    );
  }
  return { etcdPassword: password };
}

/** Loads the registry config from `REACH_CONFIG` (or `text`) plus env overrides; fails fast. */
export function loadRegistryConfig(env: Record<string, string | undefined>, text?: string): RegistryConfig {
  return compileRegistryConfig(loadConfig(env, text), env);
}

/** Builds a registry config from an in-memory config object (tests, embedded start). */
export function registryConfigFrom(
  input: ReachConfigInput = {},
  env: Record<string, string | undefined> = {},
): RegistryConfig {
  const parsed = ReachConfig.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ReachError('INVALID_CONFIG', `invalid config: ${issue.path.join('.')}: ${issue.message}`, {
      data: { key: issue.path.join('.') },
    });
  }
  return compileRegistryConfig(parsed.data, env);
}
