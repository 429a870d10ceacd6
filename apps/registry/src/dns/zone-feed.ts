import { entryData, type InstanceEntry } from './instance-entry.js';
import type { Zone, ZoneChange } from './zone.js';
import type { ZoneUpdate } from './zone-replica.js';

/** Weight-only changes arrive spread over a publication pass; gathering them this long means one rebuild, not hundreds. */
const WEIGHT_DELAY_MS = 50;

/**
 * Follows a Zone and hands out its changes as ZoneUpdates for a ZoneReplica: everything at first, then
 * only what changed: registrations at the end of the current task, weight-only changes gathered for
 * WEIGHT_DELAY_MS (each update makes the replica rebuild its snapshot).
 */
export class ZoneFeed {
  /**
   * Instances changed since the last update, each with the entry its latest change encoded (sent as
   * data: the replica lays it out without encoding the registration again), or undefined when that
   * change removed it or could not publish it.
   */
  private readonly pending = new Map<string, InstanceEntry | undefined>();
  /** Instances whose weights moved (the zone reports only those). */
  private readonly pendingWeights = new Set<string>();
  private scheduled = false;
  private weightTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly zone: Zone,
    private readonly send: (update: ZoneUpdate) => void,
  ) {
    this.unsubscribe = zone.onChange((_serial, change) => this.note(change));
  }

  /** The whole zone as one update, for a new replica; later updates follow from here. */
  initial(): ZoneUpdate {
    this.pending.clear();
    this.pendingWeights.clear();
    return this.zone.everything();
  }

  /** Stops following the zone; nothing more is sent. */
  close(): void {
    this.closed = true;
    clearTimeout(this.weightTimer);
    this.unsubscribe();
  }

  private note(change: ZoneChange): void {
    if ('weights' in change) {
      for (const id of change.weights) this.pendingWeights.add(id);
      this.weightTimer ??= setTimeout(() => this.flush(), WEIGHT_DELAY_MS);
      return;
    }
    for (const id of change.ids) this.pending.set(id, undefined);
    for (const entry of change.entries) this.pending.set(entry.name, entry);
    if (this.scheduled) return;
    this.scheduled = true;
    // A burst of watch events in one task becomes one message.
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    clearTimeout(this.weightTimer);
    this.weightTimer = undefined;
    if (this.closed) return;
    const update: ZoneUpdate = { serial: this.zone.serial, put: [], weights: [], deleted: [] };
    for (const [id, entry] of this.pending) {
      const weights = this.zone.weightsOf(id);
      if (entry !== undefined && weights !== undefined) update.put.push({ entry: entryData(entry), weights });
      // Not published (gone, or never publishable): a replica that does not hold it ignores the delete.
      else update.deleted.push(id);
    }
    for (const id of this.pendingWeights) {
      if (this.pending.has(id)) continue;
      const weights = this.zone.weightsOf(id);
      if (weights !== undefined) update.weights.push([id, weights]);
    }
    this.pending.clear();
    this.pendingWeights.clear();
    // Sent even when empty: the replica's SOA serial follows the zone's.
    this.send(update);
  }
}
