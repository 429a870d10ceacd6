import type { InstanceSource } from '../instances/instance-source.js';
import type { LivenessSnapshot } from '../routing/routing-liveness.js';
import type { InstanceRecord } from '../store/records.js';

/**
 * The instances a weight pass walks, each with its liveness when the roster holds it: the registry's
 * `LivenessTable` lists its entries (each holds its record), so a pass at 100,000 instances reads them
 * in order instead of looking each one up by id in the liveness map (a cache miss each).
 */
export interface WeightRoster<T> {
  /** The instances the instance source lists, as of now; the array is replaced, never changed, on a change. */
  listed(): readonly T[];
  recordOf(item: T): InstanceRecord;
  /** What routing reads of its liveness at `now` (`RoutingLiveness.snapshot`); undefined: routing looks it up. */
  livenessOf(item: T, now: number): LivenessSnapshot | undefined;
}

/** The instance source's records, their liveness left to routing's lookup by id. */
export function sourceRoster(source: Pick<InstanceSource, 'all'>): WeightRoster<InstanceRecord> {
  return { listed: () => source.all(), recordOf: (record) => record, livenessOf: () => undefined };
}
