import type { InstanceRecord } from '../store/records.js';
import type { WeightOf } from '../weights/weight-of.js';
import { type InstanceEntry, instanceEntry } from './instance-entry.js';
import type { SnapshotProvider } from './packet-handler.js';
import type { InstanceWeights, ZoneSettings } from './zone.js';
import { buildSnapshot, type ZoneSnapshot } from './zone-snapshot.js';

/** One published instance as data: its registration and the weights the zone gives it. */
export interface PublishedInstance {
  record: InstanceRecord;
  weights: InstanceWeights;
}

/** A batch of zone changes as plain data (it crosses threads): applied in order, it keeps a replica equal to the zone. */
export interface ZoneUpdate {
  /** The zone's SOA serial after the batch. */
  serial: number;
  /** Instances added or re-registered. */
  put: PublishedInstance[];
  /** New weights of instances whose registration did not change. */
  weights: Array<[instanceId: string, weights: InstanceWeights]>;
  deleted: string[];
}

interface ReplicaEntry {
  entry: InstanceEntry;
  weights: InstanceWeights;
}

/**
 * A copy of a Zone built from ZoneUpdates instead of a store watch: what the responder thread answers
 * from. It lays out the same snapshot as the Zone (same builder, order, serial and weights).
 */
export class ZoneReplica implements SnapshotProvider {
  private readonly entries = new Map<string, ReplicaEntry>();
  private serial = 0;
  private cached: ZoneSnapshot | undefined;
  private sorted: InstanceEntry[] | undefined;
  private readonly weightOf: WeightOf = (record, capability) => {
    const weights = this.entries.get(record.instance_id)!.weights;
    return capability === undefined ? weights.generic : (weights.byCapability[capability] ?? weights.generic);
  };

  constructor(private readonly settings: ZoneSettings) {}

  /** Applies one batch; the next snapshot() reflects it. */
  apply(update: ZoneUpdate): void {
    for (const id of update.deleted) this.entries.delete(id);
    for (const { record, weights } of update.put) {
      // The zone only sends what it could encode, so this fails only if the two disagree.
      const entry = instanceEntry(record, this.settings.apex);
      if (entry.ok) this.entries.set(record.instance_id, { entry: entry.value, weights });
      else this.entries.delete(record.instance_id);
    }
    for (const [id, weights] of update.weights) {
      const held = this.entries.get(id);
      if (held !== undefined) held.weights = weights;
    }
    if (update.put.length > 0 || update.deleted.length > 0) this.sorted = undefined;
    this.serial = update.serial;
    this.cached = undefined;
  }

  /** The zone as of the last applied update; rebuilt only after a change. */
  snapshot(): ZoneSnapshot {
    if (this.cached === undefined) {
      this.sorted ??= [...this.entries.values()]
        .map((held) => held.entry)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      this.cached = buildSnapshot({
        ...this.settings,
        serial: this.serial,
        entries: this.sorted,
        weightOf: this.weightOf,
      });
    }
    return this.cached;
  }
}
