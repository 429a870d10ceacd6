import type { ReachClientOptions } from '@agent-reach/sdk/client';
import type { ReachConfig } from './reach-config.js';

/** Client options from the config file: the registry's listen address, the DNS server and `agent_sdk`. */
export function clientOptionsFromConfig(config: ReachConfig): ReachClientOptions {
  const sdk = config.agent_sdk;
  return {
    registryUrl: `http://${config.control_plane.listen.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}`,
    dns: { server: config.dns.server, zone: config.dns.zone },
    connectTimeout: sdk.connection_timeout_ms,
    ackTimeout: sdk.response_timeout_ms,
    executionTimeout: sdk.execution_timeout_ms,
    maxCandidates: sdk.max_candidates,
    fallbackEnabled: sdk.fallback_enabled,
    retryBudget: { ratio: sdk.retry_budget_ratio },
    routeCache: sdk.route_cache_ttl_ms > 0 ? { ttl: sdk.route_cache_ttl_ms } : false,
  };
}
