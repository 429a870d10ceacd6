import type { ManualClock } from '@agent-reach/sdk/testing';
import type { InstanceProber } from '../liveness/instance-prober.js';
import type { LivenessTable } from '../liveness/liveness-table.js';
import { StormGuard } from '../liveness/storm-guard.js';
import { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistryStore } from '../store/store.js';
import { captureLogger } from './test-registry.js';

/** The lease TTL the storm guard's tests grant (the default: four heartbeat timeouts). */
export const TEST_LEASE_TTL_MS = 60_000;
/** Its refresh window: `(leaseTtlMs − heartbeatTimeoutMs) / 2`. */
export const TEST_LEASE_REFRESH_MS = 22_500;

/**
 * A storm guard for liveness tests: 5 s heartbeats, 15 s timeout, leases refreshed every 22.5 s (the
 * 60 s default lease TTL), a storm from 25 % of at least 5 instances, held 60 s, 2 evictions per interval.
 */
export function testStormGuard(deps: {
  table: LivenessTable;
  store: RegistryStore;
  clock: ManualClock;
  prober?: InstanceProber;
}): StormGuard {
  const { table } = deps;
  return new StormGuard({
    ...deps,
    metrics: new RegistryMetrics(
      () => table.counts(),
      () => true,
    ),
    logger: captureLogger().logger,
    config: {
      heartbeatIntervalMs: 5000,
      heartbeatTimeoutMs: 15_000,
      leaseRefreshMs: TEST_LEASE_REFRESH_MS,
      storm: {
        threshold: 0.25,
        minInstances: 5,
        holdMs: 60_000,
        maxEvictionsPerInterval: 2,
        probeTimeoutMs: 1000,
      },
    },
  });
}
