import { describe, expect, it } from 'vitest';
import { loadConsoleConfig, urlOfListen } from './config.js';

describe('loadConsoleConfig', () => {
  it('derives the API URLs from the listen addresses by default', () => {
    const config = loadConsoleConfig({}, '');
    expect(config).toEqual({
      listen: { host: '127.0.0.1', port: 18089 },
      registryUrl: 'http://127.0.0.1:8701',
      orchestratorUrl: 'http://127.0.0.1:8702',
      jaegerUrl: null,
      apiToken: null,
    });
  });

  it('turns wildcard listen addresses into loopback URLs', () => {
    const config = loadConsoleConfig(
      {},
      'control_plane: { listen: "0.0.0.0:9701" }\norchestrator: { listen: "[::]:9702" }',
    );
    expect(config.registryUrl).toBe('http://127.0.0.1:9701');
    expect(config.orchestratorUrl).toBe('http://[::1]:9702');
    expect(urlOfListen('[::1]:80')).toBe('http://[::1]:80');
  });

  it('takes REACH_REGISTRY_URL, REACH_ORCHESTRATOR_URL, REACH_JAEGER_URL and REACH_API_TOKEN from env', () => {
    const config = loadConsoleConfig(
      {
        REACH_REGISTRY_URL: 'http://registry:8701/',
        REACH_ORCHESTRATOR_URL: 'https://orch.example/base',
        REACH_JAEGER_URL: 'http://jaeger:16686',
        REACH_API_TOKEN: 'secret-token',
        REACH_CONSOLE_LISTEN: '0.0.0.0:18090',
      },
      'console: { jaeger_url: "http://ignored:1" }',
    );
    expect(config).toEqual({
      listen: { host: '0.0.0.0', port: 18090 },
      registryUrl: 'http://registry:8701',
      orchestratorUrl: 'https://orch.example/base',
      jaegerUrl: 'http://jaeger:16686',
      apiToken: 'secret-token',
    });
  });

  it('reads console.jaeger_url and orchestrator.api_token from the file', () => {
    const config = loadConsoleConfig(
      {},
      'console: { jaeger_url: "http://jaeger:16686/" }\norchestrator: { api_token: "file-token-123" }',
    );
    expect(config.jaegerUrl).toBe('http://jaeger:16686');
    expect(config.apiToken).toBe('file-token-123');
  });

  it('fails fast with INVALID_CONFIG naming the variable', () => {
    expect(() => loadConsoleConfig({ REACH_REGISTRY_URL: 'registry:8701' }, '')).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', data: { key: 'REACH_REGISTRY_URL' } }),
    );
    expect(() => loadConsoleConfig({ REACH_ORCHESTRATOR_URL: 'ftp://x' }, '')).toThrow(
      /REACH_ORCHESTRATOR_URL/,
    );
    expect(() => loadConsoleConfig({}, 'console: { jaeger_url: 12 }')).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
});
