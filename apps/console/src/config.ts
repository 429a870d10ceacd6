import { type ConnectionLimits, connectionLimitsOf, loadConfig, type ReachConfig } from '@agent-reach/config';
import { ReachError, splitHostPort } from '@agent-reach/sdk/protocol';

/** Everything the console server and the `reach` CLI need, compiled once; nothing else reads the env. */
export interface ConsoleConfig {
  /** Where the console serves (`console.listen`). @default 127.0.0.1:18089 */
  listen: { host: string; port: number };
  /** The registry's base URL (`REACH_REGISTRY_URL`, else from `control_plane.listen`). */
  registryUrl: string;
  /** The orchestrator's base URL (`REACH_ORCHESTRATOR_URL`, else from `orchestrator.listen`). */
  orchestratorUrl: string;
  /**
   * Jaeger's UI (`REACH_JAEGER_URL` or `console.jaeger_url`); when unset and OTLP export is configured
   * (`OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT`), Jaeger's default UI port on the collector's host. Null hides trace links.
   */
  jaegerUrl: string | null;
  /** pino level from `LOG_LEVEL`. @default 'info' */
  logLevel: string;
  /** Bearer token the CLI sends to the orchestrator's mutating routes (`REACH_API_TOKEN` or `orchestrator.api_token`). */
  apiToken: string | null;
  /** Registry write token (`REACH_REGISTRY_TOKEN`): `reach verify` registers its faulty agent with it, `reach register --card` sends it; null: open registry. */
  registryToken: string | null;
  /** Idle/header timeouts, connection cap and keep-alive limit of the console server (`console.connections`). */
  connections: ConnectionLimits;
}

const invalid = (key: string, message: string) =>
  new ReachError('INVALID_CONFIG', `invalid config: ${key}: ${message}`, { data: { key } });

/** A base URL without a trailing slash; http(s) only; INVALID_CONFIG naming `key` otherwise. */
export function baseUrl(value: string, key: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(key, `not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(key, 'must be an http(s) URL');
  if (url.search !== '' || url.hash !== '') throw invalid(key, 'must not carry a query or fragment');
  return url.toString().replace(/\/+$/, '');
}

/** The URL a local client reaches a `host:port` listen address at (wildcards become loopback). */
export function urlOfListen(listen: string): string {
  const { host, port } = splitHostPort(listen);
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Jaeger's UI beside an OTLP collector: the all-in-one image serves it on 16686 of the same host. */
function jaegerBesideOtlp(endpoint: string | undefined): string | null {
  if (endpoint === undefined) return null;
  try {
    const url = new URL(endpoint);
    // URL keeps an IPv6 host in brackets already.
    return `${url.protocol}//${url.hostname}:16686`;
  } catch {
    return null;
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Turns a parsed config and the env record into the console's options; throws INVALID_CONFIG naming the key. */
export function compileConsoleConfig(
  reach: ReachConfig,
  env: Readonly<Record<string, string | undefined>> = {},
): ConsoleConfig {
  const pick = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const registry = pick('REACH_REGISTRY_URL');
  const orchestrator = pick('REACH_ORCHESTRATOR_URL');
  const otlp = pick('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? pick('OTEL_EXPORTER_OTLP_ENDPOINT');
  const exporting =
    pick('OTEL_SDK_DISABLED')?.toLowerCase() !== 'true' && pick('OTEL_TRACES_EXPORTER') !== 'none';
  const jaeger =
    pick('REACH_JAEGER_URL') ??
    reach.console.jaeger_url ??
    (exporting ? jaegerBesideOtlp(otlp) : null) ??
    undefined;
  const logLevel = pick('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw invalid('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  return {
    listen: splitHostPort(reach.console.listen),
    registryUrl:
      registry === undefined
        ? urlOfListen(reach.control_plane.listen)
        : baseUrl(registry, 'REACH_REGISTRY_URL'),
    orchestratorUrl:
      orchestrator === undefined
        ? urlOfListen(reach.orchestrator.listen)
        : baseUrl(orchestrator, 'REACH_ORCHESTRATOR_URL'),
    jaegerUrl: jaeger === undefined ? null : baseUrl(jaeger, 'console.jaeger_url'),
    apiToken: pick('REACH_API_TOKEN') ?? reach.orchestrator.api_token ?? null,
    registryToken: pick('REACH_REGISTRY_TOKEN') ?? null,
    logLevel,
    connections: connectionLimitsOf(reach.console.connections),
  };
}

/** Loads the shared YAML (`REACH_CONFIG`) with env overrides and compiles the console's part of it. */
export function loadConsoleConfig(
  env: Readonly<Record<string, string | undefined>>,
  text?: string,
): ConsoleConfig {
  return compileConsoleConfig(loadConfig({ ...env }, text), env);
}
