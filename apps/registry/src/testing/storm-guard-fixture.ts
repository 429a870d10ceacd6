import type { ManualClock } from '@agent-reach/sdk/testing';
import type { InstanceProber } from '../liveness/instance-prober.js';
import type { LivenessTable } from '../liveness/liveness-table.js';
import { StormGuard } from '../liveness/storm-guard.js';
import { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistryStore } from '../store/store.js';
import { captureLogger } from './test-registry.js';

/**
 * A storm guard for liveness tests: 5 s heartbeats, 15 s timeout, a storm from 25 % of at least 5
 * instances, held 60 s, 2 evictions per interval.
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
