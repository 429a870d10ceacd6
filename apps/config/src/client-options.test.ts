import { compileClientOptions } from '@agent-reach/sdk/client';
import { describe, expect, it } from 'vitest';
import { clientOptionsFromConfig } from './client-options.js';
import { ReachConfig } from './reach-config.js';

describe('clientOptionsFromConfig', () => {
  it('reads the config file’s agent_sdk, dns and control_plane sections', () => {
    const config = ReachConfig.parse({ agent_sdk: { response_timeout_ms: '3s', max_candidates: 5 } });
    const options = compileClientOptions(clientOptionsFromConfig(config));
    expect(options).toMatchObject({
      registryUrl: 'http://127.0.0.1:8701',
      dns: { host: '127.0.0.1', port: 8053, zone: 'agents.internal' },
      ackTimeoutMs: 3000,
      maxCandidates: 5,
      routeCache: { ttlMs: 1000, maxEntries: 1000 },
    });
    const off = ReachConfig.parse({ agent_sdk: { route_cache_ttl_ms: 0 } });
    expect(compileClientOptions(clientOptionsFromConfig(off)).routeCache).toBe(false);
    expect(() => compileClientOptions({ routeCache: { ttl: 'soon' } })).toThrow(/routeCache.ttl/);
  });
});
