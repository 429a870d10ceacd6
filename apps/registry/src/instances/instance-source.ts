import type { InstanceRecord } from '../store/records.js';

/** A batch of registration changes, as seen by the store watch. */
export interface InstanceChanges {
  put: InstanceRecord[];
  deleted: string[];
}

/**
 * The live registrations, kept current from the store's watch (never by polling).
 * The registry's InstanceCache implements it; the DNS zone, routing and the API read it.
 */
export interface InstanceSource {
  all(): InstanceRecord[];
  get(instanceId: string): InstanceRecord | undefined;
  /** Calls `listener` after each applied batch of changes; returns an unsubscribe function. */
  subscribe(listener: (changes: InstanceChanges) => void): () => void;
}
