import type { RegistryConfigFile } from '../harness/registry-process.js';

/** Short liveness so leases run out within a test (etcd's lease TTL counts whole seconds). */
export const INTERVAL_MS = 1_000;
export const TIMEOUT_MS = 3_000;

/** Registry bearer tokens: one for every capability, one for text capabilities only. */
export const TOKENS = { agents: 'e2e-agents-token-0001', text: 'e2e-text-token-0001' } as const;

/** Storm protection as configured: 25 % silent within one interval, at least 5 instances, a 5 s hold, 2 evictions per interval, 500 ms probes. */
export const STORM = {
  threshold: 0.25,
  min_instances: 5,
  hold: '5s',
  max_evictions_per_interval: 2,
  probe_timeout: '500ms',
} as const;
export const PROBE_TIMEOUT_MS = 500;
export const STORM_HOLD_MS = 5_000;

/** The registry config file for one store; `timeoutMs` lengthens the leases (restart scenarios). */
export function registryConfig(storage: Record<string, unknown>, timeoutMs = TIMEOUT_MS): RegistryConfigFile {
  return {
    control_plane: {
      heartbeat_interval: `${INTERVAL_MS}ms`,
      heartbeat_timeout: `${timeoutMs}ms`,
      tokens: [
        { name: 'agents', token: TOKENS.agents, capabilities: ['*'] },
        { name: 'text', token: TOKENS.text, capabilities: ['summarize', 'writing'] },
      ],
      storm: STORM,
    },
    storage,
  };
}
