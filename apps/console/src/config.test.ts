import { DEFAULT_CONNECTION_LIMITS } from '@agent-reach/sdk/node';
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
      registryToken: null,
      logLevel: 'info',
      connections: DEFAULT_CONNECTION_LIMITS,
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

  it('takes REACH_REGISTRY_URL, REACH_ORCHESTRATOR_URL, REACH_JAEGER_URL and the two tokens from env', () => {
    const config = loadConsoleConfig(
      {
        REACH_REGISTRY_URL: 'http://registry:8701/',
        REACH_ORCHESTRATOR_URL: 'https://orch.example/base',
        REACH_JAEGER_URL: 'http://jaeger:16686',
        REACH_API_TOKEN: 'secret-token',
        REACH_REGISTRY_TOKEN: 'registry-token',
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
      registryToken: 'registry-token',
      logLevel: 'info',
      connections: DEFAULT_CONNECTION_LIMITS,
    });
  });

  it('links Jaeger beside the OTLP collector by default when traces are exported', () => {
    const otlp = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318' };
    expect(loadConsoleConfig(otlp, '').jaegerUrl).toBe('http://collector.example:16686');
    expect(
      loadConsoleConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://[::1]:4318/v1/traces' }, '').jaegerUrl,
    ).toBe('https://[::1]:16686');
    // An explicit setting wins; switched-off export links nowhere.
    expect(loadConsoleConfig({ ...otlp, REACH_JAEGER_URL: 'http://jaeger:1' }, '').jaegerUrl).toBe(
      'http://jaeger:1',
    );
    expect(loadConsoleConfig({ ...otlp, OTEL_SDK_DISABLED: 'true' }, '').jaegerUrl).toBeNull();
    expect(loadConsoleConfig({ ...otlp, OTEL_TRACES_EXPORTER: 'none' }, '').jaegerUrl).toBeNull();
  });

  it('reads console.jaeger_url and orchestrator.api_token from the file', () => {
    const config = loadConsoleConfig(
      {},
      'console: { jaeger_url: "http://jaeger:16686/" }\norchestrator: { api_token: "file-token-123" }',
    );
    expect(config.jaegerUrl).toBe('http://jaeger:16686');
    expect(config.apiToken).toBe('file-token-123');
  });

  it('reads console.connections', () => {
    const config = loadConsoleConfig(
      {},
      'console: { connections: { idle_timeout: 5, max_connections: 64 } }',
    );
    expect(config.connections).toMatchObject({ idleTimeoutMs: 5000, maxConnections: 64 });
    expect(() => loadConsoleConfig({}, 'console: { connections: { max_connections: 0 } }')).toThrow(
      /console\.connections\.max_connections/,
    );
  });

  it('fails fast with INVALID_CONFIG naming the variable', () => {
    expect(() => loadConsoleConfig({ REACH_REGISTRY_URL: 'registry:8701' }, '')).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG', data: { key: 'REACH_REGISTRY_URL' } }),
    );
    expect(() => loadConsoleConfig({ REACH_ORCHESTRATOR_URL: 'ftp://x' }, '')).toThrow(
      /REACH_ORCHESTRATOR_URL/,
    );
    expect(() => loadConsoleConfig({ LOG_LEVEL: 'loud' }, '')).toThrow(/LOG_LEVEL/);
    expect(() => loadConsoleConfig({}, 'console: { jaeger_url: 12 }')).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
});
