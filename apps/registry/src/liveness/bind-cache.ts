import type { InstanceSource } from '../instances/instance-source.js';
import type { LivenessTable } from './liveness-table.js';

/** Keeps the liveness table in step with the store's registrations; returns an unsubscribe function. */
export function bindLivenessToInstances(table: LivenessTable, source: InstanceSource): () => void {
  // Registrations present at start (e.g. after a registry restart): their first heartbeat sets the seq baseline.
  for (const record of source.all()) table.track(record, false, true);
  return source.subscribe(({ put, deleted }) => {
    for (const record of put) table.track(record, false, true);
    for (const instanceId of deleted) table.remove(instanceId);
  });
}
