import { type Clock, systemClock } from '../clock/index.js';
import { parseDuration } from '../protocol/duration.js';
import { ReachError } from '../protocol/errors.js';
import { splitHostPort } from '../protocol/host-port.js';

/** A duration: `'300ms' | '2s' | '5m'` or a number of milliseconds. */
export type DurationInput = string | number;

/** How a ReachClient reaches the registry, DNS and agents. */
export interface ReachClientOptions {
  /** The registry's base URL, e.g. `http://127.0.0.1:8701`; without it candidates come from DNS only. */
  registryUrl?: string;
  /** The DNS fallback: a server `host:port` and the zone. */
  dns?: { server: string; zone?: string; timeout?: DurationInput };
  /** @default '300ms' (seed article 2.3) */
  connectTimeout?: DurationInput;
  /** Time from connect to the first A2A task event (the ack). @default '2s' */
  ackTimeout?: DurationInput;
  /** Time from the ack to the result when the caller gives no deadline. @default '30s' */
  executionTimeout?: DurationInput;
  /** How long a route query to the registry may take before DNS is asked instead. @default '1s' */
  routeTimeout?: DurationInput;
  /**
   * The client's own cache of registry route answers: calls for the same need within `ttl` skip the
   * registry round trip (each still draws its own score-weighted order; a failed attempt drops the
   * entries holding that instance). `false` asks the registry for every call.
   * @default { ttl: '1s', maxEntries: 1000 }
   */
  routeCache?: false | { ttl?: DurationInput; maxEntries?: number };
  /** Candidates asked of the registry per call (at least `k`, plus fallbacks). @default 3 */
  maxCandidates?: number;
  /** Whether failed attempts move on to the next candidate at all. @default true */
  fallbackEnabled?: boolean;
  /** Shared budget of retries and fallbacks (a token bucket). */
  retryBudget?: { ratio?: number; minPerSecond?: number; maxTokens?: number };
  /** Registry bearer token (with the `report_outcomes` right) sent with outcome reports, when the registry has tokens. */
  registryToken?: string;
  /** Outcome reporting to `POST /v1/outcomes`; `false` turns it off. */
  outcomes?: false | { flushInterval?: DurationInput; maxBatch?: number };
  /** Sent as `caller` in every call. */
  caller?: string;
  /** Used for the registry's HTTP API. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default systemClock */
  clock?: Clock;
}

/** Options with defaults applied and durations in milliseconds. */
export interface CompiledClientOptions {
  registryUrl: string | undefined;
  dns: { host: string; port: number; zone: string; timeoutMs: number } | undefined;
  connectTimeoutMs: number;
  ackTimeoutMs: number;
  executionTimeoutMs: number;
  routeTimeoutMs: number;
  routeCache: { ttlMs: number; maxEntries: number } | false;
  maxCandidates: number;
  fallbackEnabled: boolean;
  retryBudget: { ratio: number; minPerSecond: number; maxTokens: number };
  outcomes: { flushIntervalMs: number; maxBatch: number } | false;
  registryToken: string | undefined;
  caller: string | undefined;
  fetch: typeof fetch;
  clock: Clock;
}

function ms(value: DurationInput | undefined, fallback: number, key: string): number {
  if (value === undefined) return fallback;
  const parsed = parseDuration(value);
  if (parsed === null || parsed <= 0) {
    throw new ReachError('INVALID_CONFIG', `${key}: not a positive duration: ${JSON.stringify(value)}`, {
      data: { key },
    });
  }
  return parsed;
}

function count(value: number | undefined, fallback: number, key: string, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ReachError('INVALID_CONFIG', `${key}: must be between ${min} and ${max}`, { data: { key } });
  }
  return value;
}

/** Applies defaults and converts durations; throws INVALID_CONFIG naming the option. */
export function compileClientOptions(options: ReachClientOptions = {}): CompiledClientOptions {
  let dns: CompiledClientOptions['dns'];
  if (options.dns) {
    let server: { host: string; port: number };
    try {
      server = splitHostPort(options.dns.server);
    } catch (cause) {
      throw new ReachError('INVALID_CONFIG', `dns.server: not host:port: ${options.dns.server}`, { cause });
    }
    const zone = (options.dns.zone ?? 'agents.internal').replace(/\.$/, '').toLowerCase();
    dns = { ...server, zone, timeoutMs: ms(options.dns.timeout, 500, 'dns.timeout') };
  }
  if (options.registryUrl !== undefined && !/^https?:\/\/[^/]+/.test(options.registryUrl)) {
    throw new ReachError('INVALID_CONFIG', `registryUrl: not an http(s) URL: ${options.registryUrl}`);
  }
  const budget = options.retryBudget ?? {};
  const outcomes = options.outcomes;
  const routeCache = options.routeCache;
  return {
    registryUrl: options.registryUrl?.replace(/\/+$/, ''),
    dns,
    connectTimeoutMs: ms(options.connectTimeout, 300, 'connectTimeout'),
    ackTimeoutMs: ms(options.ackTimeout, 2000, 'ackTimeout'),
    executionTimeoutMs: ms(options.executionTimeout, 30_000, 'executionTimeout'),
    routeTimeoutMs: ms(options.routeTimeout, 1000, 'routeTimeout'),
    routeCache:
      routeCache === false
        ? false
        : {
            ttlMs: ms(routeCache?.ttl, 1000, 'routeCache.ttl'),
            maxEntries: count(routeCache?.maxEntries, 1000, 'routeCache.maxEntries', 1, 1e6),
          },
    maxCandidates: count(options.maxCandidates, 3, 'maxCandidates', 1, 20),
    fallbackEnabled: options.fallbackEnabled ?? true,
    retryBudget: {
      ratio: count(budget.ratio, 0.2, 'retryBudget.ratio', 0, 1),
      minPerSecond: count(budget.minPerSecond, 3, 'retryBudget.minPerSecond', 0, 1e6),
      maxTokens: count(budget.maxTokens, 10, 'retryBudget.maxTokens', 0, 1e6),
    },
    outcomes:
      outcomes === false
        ? false
        : {
            flushIntervalMs: ms(outcomes?.flushInterval, 1000, 'outcomes.flushInterval'),
            maxBatch: count(outcomes?.maxBatch, 100, 'outcomes.maxBatch', 1, 1000),
          },
    registryToken: options.registryToken,
    caller: options.caller,
    fetch: options.fetch ?? globalThis.fetch,
    clock: options.clock ?? systemClock,
  };
}
