import { CatalogEntry, Duration, parseDuration } from '@agent-reach/sdk/protocol';
import { z } from 'zod';

/** A duration whose bare numbers mean seconds, as in the seed article's config file. */
const Seconds = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDuration(typeof value === 'number' ? `${value}s` : value);
  if (ms === null) {
    ctx.addIssue({
      code: 'custom',
      message: `not a duration: ${JSON.stringify(value)} (seconds, or e.g. 300ms, 2s, 5m)`,
    });
    return z.NEVER;
  }
  return ms;
});

const HostPort = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'host:port');

/**
 * What a registry token may do: register agents, report call outcomes (`POST /v1/outcomes`), mark
 * declaration versions verified (an operator's right, never a default).
 */
export const TokenRight = z.enum(['register', 'report_outcomes', 'verify_declarations']);
export type TokenRight = z.infer<typeof TokenRight>;

/**
 * A registry bearer token: its rights, the capability patterns it may register (`*`, `text_*`,
 * `summarize`) and the agent-name patterns it may register under (`*`, `trans-*`, `summarizer`).
 */
export const TokenGrant = z
  .object({
    name: z.string().min(1).max(80),
    token: z.string().min(8).optional(),
    /** Read the token from this environment variable instead of the file. */
    token_env: z.string().min(1).optional(),
    capabilities: z.array(z.string().regex(/^[a-z0-9_*]{1,40}$/)).default([]),
    /** Agent names this token may register; the first registration of a name binds it to the token. */
    agent_names: z
      .array(z.string().regex(/^[a-z0-9*][a-z0-9*-]{0,62}$/))
      .min(1)
      .default(['*']),
    rights: z.array(TokenRight).min(1).default(['register', 'report_outcomes']),
  })
  .strict()
  .refine((t) => t.token !== undefined || t.token_env !== undefined, 'give token or token_env')
  .refine(
    (t) => !t.rights.includes('register') || t.capabilities.length > 0,
    'a token with the register right needs capabilities',
  );

/** Connection hygiene of one HTTP server (registry, orchestrator, console). */
export const ConnectionLimitsConfig = z
  .object({
    /** A connection with no request in flight closes after this long without a byte. */
    idle_timeout: Seconds.prefault(30),
    /** The request head must arrive within this. */
    header_timeout: Seconds.prefault(10),
    /** The whole request (head and body) must arrive within this. */
    request_timeout: Seconds.prefault(60),
    /** More connections than this are closed at once (and counted in the metrics). */
    max_connections: z.number().int().min(1).max(1_000_000).default(4096),
    /** A kept-alive connection serves at most this many requests (0: no limit). */
    max_requests_per_connection: z.number().int().min(0).default(10_000),
  })
  .strict();
export type ConnectionLimitsConfig = z.infer<typeof ConnectionLimitsConfig>;

/** How far one caller's outcomes can move an instance's success rate. */
export const OutcomeBoundsConfig = z
  .object({
    /**
     * Most share of an instance's outcome evidence (the prior included) one caller's window may hold
     * when tokens are configured; 0.5 keeps one caller's 100 % failures at a success rate of 0.45.
     */
    caller_share: z.number().gt(0).lt(1).default(0.5),
  })
  .strict();

/** The governance report's route history (docs/governance.md). */
export const GovernanceConfig = z
  .object({
    /** How long the hourly route history is kept: the longest report window. */
    retention: Seconds.prefault('30d').refine(
      (ms) => ms >= 86_400_000 && ms <= 366 * 86_400_000,
      'between 1d and 366d',
    ),
    /** How often each replica writes its changed hourly counts to the store. */
    flush_interval: Seconds.prefault(30).refine((ms) => ms >= 1000 && ms <= 3_600_000, 'between 1s and 1h'),
  })
  .strict();

/** The registry's section (the seed's `control_plane`, extended). */
export const ControlPlaneConfig = z
  .object({
    listen: HostPort.default('127.0.0.1:8701'),
    heartbeat_interval: Seconds.prefault(5),
    heartbeat_timeout: Seconds.prefault(15),
    /**
     * TTL of each instance's store lease: a dead-man switch that removes an instance's records when no
     * registry replica refreshes it, not its liveness deadline (the leader evicts at heartbeat_timeout).
     * Unset: four times heartbeat_timeout.
     */
    lease_ttl: Seconds.optional(),
    route_strategy: z.enum(['capability_weighted']).default('capability_weighted'),
    route_cache_ttl: Seconds.prefault(30),
    max_body_bytes: z.number().int().min(1024).default(262_144),
    /** Without tokens, registration is open (the embedded default on loopback). */
    tokens: z.array(TokenGrant).default([]),
    storm: z
      .object({
        /** Share of instances going silent within one interval that means the fault is ours. */
        threshold: z.number().min(0.05).max(1).default(0.25),
        /** Fewer instances than this never trigger storm protection. */
        min_instances: z.number().int().min(1).default(5),
        /** How long silent instances are held at most. */
        hold: Seconds.prefault(60),
        /** Most instances evicted per heartbeat interval while recovering from a storm. */
        max_evictions_per_interval: z.number().int().min(1).default(10),
        /** A silent instance's endpoint gets this long to answer the leader's probe (else: unknown, held). */
        probe_timeout: Seconds.prefault('1s'),
      })
      .strict()
      .prefault({}),
    warmup: Seconds.prefault(300),
    outcomes: OutcomeBoundsConfig.prefault({}),
    /** How long an agent whose lease ran out can re-register under its previous instance id. */
    keep_instance_id: Seconds.prefault(900),
    /** Declaration versions: when one counts as verified, how long the history is kept. */
    declarations: z
      .object({
        /** Successful calls (from reported outcomes) that verify a version; 0: only an operator verifies. */
        verify_after_calls: z.number().int().min(0).max(1_000_000).default(20),
        /**
         * History entries older than this are removed, except each agent's newest version, its newest
         * verified version and every version a live instance runs.
         */
        keep_history: Seconds.prefault('2160h'),
      })
      .strict()
      .prefault({}),
    connections: ConnectionLimitsConfig.prefault({}),
    governance: GovernanceConfig.prefault({}),
  })
  .strict();

/** The seed's `agent_sdk` section: caller-side defaults. */
export const AgentSdkConfig = z
  .object({
    max_candidates: z.number().int().min(1).max(20).default(3),
    connection_timeout_ms: Duration.prefault(300),
    response_timeout_ms: Duration.prefault(2000),
    execution_timeout_ms: Duration.prefault(30_000),
    fallback_enabled: z.boolean().default(true),
    /** Share of calls that may be retries or fallbacks (seed: about 20 %). */
    retry_budget_ratio: z.number().min(0).max(1).default(0.2),
    /** ReachClient's own route cache: calls for the same need within this skip the registry; 0 turns it off. */
    route_cache_ttl_ms: Duration.prefault(1000),
  })
  .strict();

/** The seed's `storage` section; `file` is the seed's name for the embedded store. */
export const StorageConfig = z
  .object({
    type: z.enum(['embedded', 'file', 'etcd']).default('embedded'),
    path: z.string().default('./data'),
    sync_interval: Seconds.prefault(30),
    /**
     * Embedded store: answer a registration, deregistration or other stored change only once the journal
     * holding it is fsynced (changes of one event-loop turn share one fsync); `sync_interval` is then unused.
     */
    fsync_before_ack: z.boolean().default(false),
    etcd: z
      .object({
        endpoints: z.array(z.string().url()).min(1).default(['http://127.0.0.1:2379']),
        prefix: z.string().default(''),
        /** Session TTL of the registry leader election: a dead leader is replaced this long after its last renewal. */
        election_ttl: Seconds.prefault(2).refine(
          (ms) => ms >= 2000 && ms % 1000 === 0,
          'whole seconds, at least 2s (etcd rounds lease TTLs to seconds and raises those below 1.5s)',
        ),
        /** Client TLS: the CA that signed etcd's server certificate, and this client's certificate and key. */
        tls: z
          .object({
            ca_file: z.string().min(1),
            cert_file: z.string().min(1).optional(),
            key_file: z.string().min(1).optional(),
          })
          .strict()
          .refine(
            (t) => (t.cert_file === undefined) === (t.key_file === undefined),
            'give both cert_file and key_file, or neither',
          )
          .optional(),
        /** etcd user (auth enabled); its password is read from the environment variable `password_env`. */
        username: z.string().min(1).optional(),
        password_env: z.string().min(1).optional(),
      })
      .strict()
      .refine(
        (e) => (e.username === undefined) === (e.password_env === undefined),
        'give both username and password_env, or neither',
      )
      .prefault({}),
  })
  .strict();

/** The DNS zone and the registry's authoritative responder. */
export const DnsConfig = z
  .object({
    zone: z
      .string()
      .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/)
      .default('agents.internal'),
    listen: HostPort.default('127.0.0.1:8053'),
    /** The DNS server callers and the orchestrator query. */
    server: HostPort.default('127.0.0.1:8053'),
    /**
     * Answer from a worker thread of the registry's own (isolated from the API's event loop and GC,
     * restarted if it dies), the only holder of the encoded zone; false answers on the main thread,
     * which then holds the zone itself. Default: true, unless `responder_processes` is set (they replace
     * the thread). The thread costs about 55 MB idle (a second V8 isolate and its module
     * loader); the zone is held once either way (docs/registry.md).
     */
    responder_thread: z.boolean().optional(),
    /**
     * The `/skydns/` projection of every registration, for stock CoreDNS's etcd plugin: `auto` writes it
     * where another process can read the store (etcd) and not on the embedded store; `on` / `off` force it.
     */
    skydns_projection: z.enum(['auto', 'on', 'off']).default('auto'),
    /**
     * Answer from this many child processes (node:cluster workers) sharing the responder's UDP socket
     * and TCP listener, the main thread answering nothing: a reader per core lifts UDP throughput past
     * one Node thread's socket cost. Each holds a copy of the zone: about 67 MB idle, 120 MB at 10,000
     * instances (docs/registry.md). 0: none.
     */
    responder_processes: z.number().int().min(0).max(64).default(0),
    /** DNS over TCP: connections idle this long close; more than `max_connections` are refused. */
    tcp: z
      .object({
        idle_timeout: Seconds.prefault(10),
        max_connections: z.number().int().min(1).max(65_535).default(256),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .refine((d) => !(d.responder_thread === true && d.responder_processes > 0), {
    message: 'responder_processes replace the responder thread: set it or responder_thread, not both',
    path: ['responder_processes'],
  })
  .transform((d) => ({ ...d, responder_thread: d.responder_thread ?? d.responder_processes === 0 }));

/** An OpenAI-compatible model provider. */
export const ProviderConfig = z
  .object({
    name: z.string().min(1),
    base_url: z.string().url(),
    model: z.string().min(1),
    api_key_env: z.string().optional(),
    concurrency: z.number().int().min(1).max(64).default(2),
    timeout: Seconds.prefault(60),
  })
  .strict();

/** The orchestrator's section. */
export const OrchestratorConfig = z
  .object({
    listen: HostPort.default('127.0.0.1:8702'),
    /** Postgres URL; without one the trace store runs on PGlite under storage.path. */
    database_url: z.string().optional(),
    /** Registry the orchestrator reports its calls' outcomes to (`POST /v1/outcomes`); none: not reported. */
    registry_url: z.string().url().optional(),
    /** Bearer token for `POST /v1/outcomes` when the registry has tokens (`report_outcomes` right). */
    registry_token: z.string().min(8).optional(),
    api_token: z.string().min(8).optional(),
    providers: z.array(ProviderConfig).default([]),
    stale_after: Seconds.prefault(300),
    /** How long an orchestrator's hold on a running run lasts past its last renewal (takeover bound). */
    lease_ttl: Seconds.prefault(5),
    /** How often an orchestrator looks for runs whose owner stopped renewing (or handed them over). */
    takeover_interval: Seconds.prefault(1),
    connections: ConnectionLimitsConfig.prefault({}),
  })
  .strict();

/** The console's section. */
export const ConsoleConfig = z
  .object({
    listen: HostPort.default('127.0.0.1:18089'),
    /** Jaeger's UI base URL; when set, trace views link to `<jaeger_url>/trace/<id>`. */
    jaeger_url: z.string().url().optional(),
    connections: ConnectionLimitsConfig.prefault({}),
  })
  .strict();

/** The whole config file (seed article 3.3's shape, extended). */
export const ReachConfig = z
  .object({
    control_plane: ControlPlaneConfig.prefault({}),
    agent_sdk: AgentSdkConfig.prefault({}),
    storage: StorageConfig.prefault({}),
    dns: DnsConfig.prefault({}),
    orchestrator: OrchestratorConfig.prefault({}),
    console: ConsoleConfig.prefault({}),
    /** Extra catalog capabilities beyond the built-in seven. */
    catalog: z.array(CatalogEntry).default([]),
  })
  .strict();
export type ReachConfig = z.infer<typeof ReachConfig>;
export type ReachConfigInput = z.input<typeof ReachConfig>;
