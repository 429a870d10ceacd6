import { readFileSync } from 'node:fs';
import { ReachError } from '@agent-reach/sdk/protocol';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { ReachConfig } from './reach-config.js';

/** Environment variables that override well-known keys. */
const ENV_KEYS: Record<string, string[]> = {
  DATABASE_URL: ['orchestrator', 'database_url'],
  REACH_STORAGE_TYPE: ['storage', 'type'],
  REACH_STORAGE_PATH: ['storage', 'path'],
  REACH_ETCD_ENDPOINTS: ['storage', 'etcd', 'endpoints'],
  REACH_REGISTRY_LISTEN: ['control_plane', 'listen'],
  REACH_DNS_LISTEN: ['dns', 'listen'],
  REACH_DNS_SERVER: ['dns', 'server'],
  REACH_ZONE: ['dns', 'zone'],
  REACH_ORCHESTRATOR_LISTEN: ['orchestrator', 'listen'],
  REACH_ORCHESTRATOR_REGISTRY_URL: ['orchestrator', 'registry_url'],
  REACH_ORCHESTRATOR_REGISTRY_TOKEN: ['orchestrator', 'registry_token'],
  REACH_CONSOLE_LISTEN: ['console', 'listen'],
};

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const key = issue.path.length > 0 ? issue.path.join('.') : '(root)';
  return `${key}: ${issue.message}`;
}

/**
 * Parses the config from YAML text plus environment overrides; throws INVALID_CONFIG naming the key.
 * `REACH_CONFIG` in env names the file when `text` is not given.
 */
export function loadConfig(env: Record<string, string | undefined>, text?: string): ReachConfig {
  let raw: unknown = {};
  const source = text ?? (env.REACH_CONFIG ? readFileSync(env.REACH_CONFIG, 'utf8') : '');
  try {
    raw = source.trim() === '' ? {} : parseYaml(source);
  } catch (cause) {
    throw new ReachError('INVALID_CONFIG', `config is not valid YAML: ${(cause as Error).message}`, {
      cause,
    });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ReachError('INVALID_CONFIG', 'config must be a YAML mapping');
  }
  const merged = structuredClone(raw) as Record<string, unknown>;
  for (const [name, path] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setPath(merged, path, name === 'REACH_ETCD_ENDPOINTS' ? value.split(',') : value);
  }
  const parsed = ReachConfig.safeParse(merged);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new ReachError(
      'INVALID_CONFIG',
      `invalid config: ${parsed.error.issues.map(describeIssue).join('; ')}`,
      {
        data: { key: first.path.join('.') },
      },
    );
  }
  return parsed.data;
}
