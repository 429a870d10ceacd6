import { describe, expect, it } from 'vitest';
import { loadRegistryConfig, registryConfigFrom } from './config.js';

describe('loadRegistryConfig', () => {
  it('applies the seed defaults', () => {
    const config = loadRegistryConfig({});
    expect(config).toMatchObject({
      listen: { host: '127.0.0.1', port: 8701 },
      zone: 'agents.internal',
      heartbeatIntervalMs: 5000,
      heartbeatTimeoutMs: 15000,
      suspectGraceMs: 2500,
      maxBodyBytes: 262_144,
      tokens: [],
      storm: { threshold: 0.25, minInstances: 5, holdMs: 60_000, maxEvictionsPerInterval: 10 },
    });
    expect([...config.catalog]).toContain('security_review');
    expect(config.logLevel).toBe('info');
    expect(config.reach.dns.skydns_projection).toBe('auto');
    expect(loadRegistryConfig({ LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
  });

  it('reads YAML, env overrides and token_env', () => {
    const yaml = [
      'control_plane:',
      '  listen: 127.0.0.1:9701',
      '  heartbeat_interval: 2',
      '  heartbeat_timeout: 6s',
      '  tokens:',
      '    - { name: ci, token_env: CI_TOKEN, capabilities: ["text_*"] }',
      'catalog:',
      '  - { id: translation, description: Translate text. }',
    ].join('\n');
    const config = loadRegistryConfig({ CI_TOKEN: 'secret-ci-token', REACH_ZONE: 'x.test' }, yaml);
    expect(config.listen.port).toBe(9701);
    expect(config.heartbeatIntervalMs).toBe(2000);
    expect(config.heartbeatTimeoutMs).toBe(6000);
    // The lease is a dead-man switch of eight timeouts; refreshed when half its margin is used.
    expect(config.leaseTtlMs).toBe(48_000);
    expect(config.leaseRefreshMs).toBe(21_000);
    expect(loadRegistryConfig({}, 'control_plane: { lease_ttl: 2m }').leaseTtlMs).toBe(120_000);
    expect(config.zone).toBe('x.test');
    expect(config.tokens).toEqual([
      {
        name: 'ci',
        token: 'secret-ci-token',
        capabilities: ['text_*'],
        agentNames: ['*'],
        rights: ['register', 'report_outcomes'],
      },
    ]);
    expect(config.catalog.has('translation')).toBe(true);
  });

  it('fails fast naming the key', () => {
    const bad: Array<[string, Record<string, string>, string]> = [
      ['control_plane: { heartbeat_interval: soon }', {}, 'control_plane.heartbeat_interval'],
      [
        'control_plane: { heartbeat_interval: 5, heartbeat_timeout: 6 }',
        {},
        'control_plane.heartbeat_timeout',
      ],
      ['control_plane: { lease_ttl: 20 }', {}, 'control_plane.lease_ttl'],
      [
        'control_plane: { tokens: [{ name: a, token_env: MISSING, capabilities: ["*"] }] }',
        {},
        'control_plane.tokens.0',
      ],
      ['control_plane: { max_body_bytes: 10 }', {}, 'control_plane.max_body_bytes'],
      ['dns: { skydns_projection: yes }', {}, 'dns.skydns_projection'],
      ['dns: { responder_processes: -1 }', {}, 'dns.responder_processes'],
      ['dns: { responder_processes: 1.5 }', {}, 'dns.responder_processes'],
      ['dns: { responder_processes: 2, responder_thread: true }', {}, 'dns.responder_processes'],
      ['', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    ];
    for (const [yaml, env, key] of bad) {
      expect(() => loadRegistryConfig(env, yaml), yaml).toThrow(
        expect.objectContaining({ code: 'INVALID_CONFIG', message: expect.stringContaining(key) }),
      );
    }
  });

  it('builds from an in-memory object', () => {
    expect(registryConfigFrom({ control_plane: { max_body_bytes: 2048 } }).maxBodyBytes).toBe(2048);
    expect(registryConfigFrom({}).reach.dns.responder_processes).toBe(0);
    expect(registryConfigFrom({ dns: { responder_processes: 2 } }).reach.dns.responder_processes).toBe(2);
    // The responder thread is the default, except beside responder processes (they read the main thread's socket).
    expect(registryConfigFrom({}).reach.dns.responder_thread).toBe(true);
    expect(registryConfigFrom({ dns: { responder_processes: 2 } }).reach.dns.responder_thread).toBe(false);
    expect(registryConfigFrom({ dns: { responder_thread: false } }).reach.dns.responder_thread).toBe(false);
    expect(() => registryConfigFrom({ dns: { zone: 'UPPER' } })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
});
