import { z } from 'zod';
import { type Clock, systemClock } from '../clock/index.js';
import { Duration, ReachError } from '../protocol/index.js';
import { type BackoffPolicy, DEFAULT_BACKOFF } from './backoff.js';
import type { DeclarationSource } from './declaration-file.js';
import type { InvokeHandler, InvokeHook } from './invoke-context.js';
import { consoleLogger, type Logger } from './logger.js';
import { otelInvokeHook } from './otel-invoke-hook.js';
import type { LedgerLimits } from './request-ledger.js';

/** Options of {@link AgentRuntime}. Durations take `'30s' | number` (milliseconds). */
export interface AgentRuntimeOptions {
  /** The agent's name; must equal the declaration's `agent_name`. */
  agentName: string;
  /** The registry's base URL, e.g. `http://127.0.0.1:8701`. */
  controlPlaneUrl: string;
  /** Path of the capability declaration (`.json`, or YAML otherwise). Give this or `declaration`. */
  capabilityFile?: string;
  /** The capability declaration as an object. Give this or `capabilityFile`. */
  declaration?: Exclude<DeclarationSource, string>;
  /** The entrypoint, unless `start()` is given one (a function or an object with an `@runtime.entrypoint` method). */
  handler?: InvokeHandler;
  /** Address the HTTP server binds to. @default '127.0.0.1' */
  host?: string;
  /** Port the HTTP server binds to; 0 picks a free one. @default 0 */
  port?: number;
  /** The IP address registered for callers, when it differs from `host` (e.g. binding 0.0.0.0). @default host */
  advertiseHost?: string;
  /** Registry bearer token for registration, when the registry requires one. */
  registryToken?: string;
  /** Concurrent requests accepted before answering 429 OVERLOADED. @default 16 */
  capacity?: number;
  /** Execution deadline when the caller sends no `deadline_ms`. @default '30s' */
  executionTimeout?: string | number;
  /** How long `stop()` waits for in-flight requests before aborting them. @default '5s' */
  drainTimeout?: string | number;
  /** Makes `start()` reject with TIMEOUT if not registered in time (registration continues in the background). @default none: wait */
  startTimeout?: string | number;
  /** Registration backoff while the registry is unreachable. @default { initialMs: 200, maxMs: 5000 } */
  registerBackoff?: Partial<BackoffPolicy>;
  /** Largest invoke body accepted. @default 1048576 */
  maxBodyBytes?: number;
  /** request_id dedup ledger bounds. @default { maxEntries: 10000, ttlMs: 600000 } */
  dedup?: Partial<LedgerLimits>;
  /** Wraps every handler run. @default an OpenTelemetry SERVER span joined through `traceparent` */
  invokeHook?: InvokeHook;
  /** Monotonic clock and timers. @default systemClock */
  clock?: Clock;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** @default JSON lines on stderr */
  logger?: Logger;
}

/** Options after defaults and validation. */
export interface CompiledRuntimeOptions {
  agentName: string;
  controlPlaneUrl: string;
  declarationSource: DeclarationSource;
  handler: InvokeHandler | undefined;
  host: string;
  port: number;
  advertiseHost: string;
  registryToken: string | undefined;
  capacity: number;
  executionTimeoutMs: number;
  drainTimeoutMs: number;
  startTimeoutMs: number | undefined;
  backoff: BackoffPolicy;
  maxBodyBytes: number;
  ledger: LedgerLimits;
  invokeHook: InvokeHook | undefined;
  clock: Clock;
  random: () => number;
  logger: Logger;
}

const Scalars = z.object({
  agentName: z.string().min(1),
  controlPlaneUrl: z.url({ protocol: /^https?$/ }),
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(0),
  advertiseHost: z.union([z.ipv4(), z.ipv6()]).optional(),
  registryToken: z.string().min(1).optional(),
  capacity: z.number().int().min(1).max(1_000_000).default(16),
  executionTimeout: Duration.prefault('30s'),
  drainTimeout: Duration.prefault('5s'),
  startTimeout: Duration.optional(),
  registerBackoff: z
    .object({ initialMs: z.number().int().min(1).default(200), maxMs: z.number().int().min(1).default(5000) })
    .prefault({}),
  maxBodyBytes: z.number().int().min(1024).default(1_048_576),
  dedup: z
    .object({
      maxEntries: z.number().int().min(1).default(10_000),
      ttlMs: z.number().int().min(1).default(600_000),
    })
    .prefault({}),
});

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** Applies defaults and validates; throws INVALID_CONFIG naming the option. */
export function compileRuntimeOptions(options: AgentRuntimeOptions): CompiledRuntimeOptions {
  const parsed = Scalars.safeParse(options);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    const key = first.path.join('.');
    throw new ReachError('INVALID_CONFIG', `AgentRuntime option ${key}: ${first.message}`, { data: { key } });
  }
  const o = parsed.data;
  const fail = (key: string, message: string) =>
    new ReachError('INVALID_CONFIG', `AgentRuntime option ${key}: ${message}`, { data: { key } });
  const hasFile = options.capabilityFile !== undefined;
  if (hasFile === (options.declaration !== undefined))
    throw fail('capabilityFile', 'give exactly one of capabilityFile and declaration');
  const advertiseHost = o.advertiseHost ?? o.host;
  if (
    UNSPECIFIED.has(advertiseHost) ||
    z.union([z.ipv4(), z.ipv6()]).safeParse(advertiseHost).success === false
  ) {
    throw fail(
      'advertiseHost',
      `callers need an IP address to reach this agent, not ${JSON.stringify(advertiseHost)}; set advertiseHost`,
    );
  }
  if (o.registerBackoff.maxMs < o.registerBackoff.initialMs)
    throw fail('registerBackoff.maxMs', 'must be at least initialMs');
  return {
    agentName: o.agentName,
    controlPlaneUrl: o.controlPlaneUrl,
    declarationSource: hasFile ? options.capabilityFile! : options.declaration!,
    handler: options.handler,
    host: o.host,
    port: o.port,
    advertiseHost,
    registryToken: o.registryToken,
    capacity: o.capacity,
    executionTimeoutMs: o.executionTimeout,
    drainTimeoutMs: o.drainTimeout,
    startTimeoutMs: o.startTimeout,
    backoff: { ...DEFAULT_BACKOFF, ...o.registerBackoff },
    maxBodyBytes: o.maxBodyBytes,
    ledger: o.dedup,
    invokeHook: options.invokeHook ?? otelInvokeHook(),
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    logger: options.logger ?? consoleLogger(o.agentName),
  };
}
