import type { InstanceRecord } from '../store/records.js';

/**
 * A batch of registration changes, as seen by the store watch: at most one entry per instance id, its
 * state at the end of the batch.
 */
export interface InstanceChanges {
  /** Records live after the batch that it wrote (new, or in place of an earlier record of their id). */
  put: InstanceRecord[];
  /** Ids the batch removed (live before it, gone after it). */
  deleted: string[];
  /**
   * The record each id of `put` and `deleted` had before the batch, if it had one: what left the
   * source. A listener that keeps per-agent counts takes these out and `put` in, and needs no map of
   * its own from id to record (one such map is ~40 bytes per instance at 100,000 instances).
   */
  replaced: InstanceRecord[];
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
