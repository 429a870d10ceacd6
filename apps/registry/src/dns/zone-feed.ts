import type { InstanceWeights, Zone, ZoneChange } from './zone.js';
import type { PublishedInstance, ZoneUpdate } from './zone-replica.js';

/** Weight-only changes arrive spread over a publication pass; gathering them this long means one rebuild, not hundreds. */
const WEIGHT_DELAY_MS = 50;

const sameWeights = (a: InstanceWeights, b: InstanceWeights | undefined): boolean =>
  b !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * Follows a Zone and hands out its changes as ZoneUpdates for a ZoneReplica: everything at first, then
 * only what changed: registrations at the end of the current task, weight-only changes gathered for
 * WEIGHT_DELAY_MS (each update makes the replica rebuild its snapshot).
 */
export class ZoneFeed {
  private readonly pending = new Set<string>();
  /** Instances whose weights may have moved; `allWeights` means every one's may have. */
  private readonly pendingWeights = new Set<string>();
  private allWeights = false;
  private scheduled = false;
  private weightTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** What the replica holds, to send only weights that moved. */
  private readonly sent = new Map<string, InstanceWeights>();
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
    this.allWeights = false;
    this.sent.clear();
    const update = this.zone.everything();
    for (const { record, weights } of update.put) this.sent.set(record.instance_id, weights);
    return update;
  }

  /** Stops following the zone; nothing more is sent. */
  close(): void {
    this.closed = true;
    clearTimeout(this.weightTimer);
    this.unsubscribe();
  }

  private note(change: ZoneChange): void {
    if ('weights' in change) {
      if (change.weights === true) this.allWeights = true;
      else for (const id of change.weights) this.pendingWeights.add(id);
      this.weightTimer ??= setTimeout(() => this.flush(), WEIGHT_DELAY_MS);
      return;
    }
    for (const id of change.ids) this.pending.add(id);
    if (this.scheduled) return;
    this.scheduled = true;
    // A burst of watch events in one task becomes one message.
    queueMicrotask(() => this.flush());
  }

  private published(id: string): PublishedInstance | undefined {
    const record = this.zone.recordOf(id);
    const weights = this.zone.weightsOf(id);
    if (record === undefined || weights === undefined) return undefined;
    this.sent.set(id, weights);
    return { record, weights };
  }

  private flush(): void {
    this.scheduled = false;
    clearTimeout(this.weightTimer);
    this.weightTimer = undefined;
    if (this.closed) return;
    const update: ZoneUpdate = { serial: this.zone.serial, put: [], weights: [], deleted: [] };
    for (const id of this.pending) {
      const published = this.published(id);
      if (published !== undefined) update.put.push(published);
      else if (this.sent.delete(id)) update.deleted.push(id);
    }
    const moved = this.allWeights ? this.zone.instanceIds() : this.pendingWeights.values();
    for (const id of moved) {
      if (this.pending.has(id)) continue;
      const weights = this.zone.weightsOf(id);
      if (weights === undefined || sameWeights(weights, this.sent.get(id))) continue;
      this.sent.set(id, weights);
      update.weights.push([id, weights]);
    }
    this.pending.clear();
    this.pendingWeights.clear();
    this.allWeights = false;
    // Sent even when empty: the replica's SOA serial follows the zone's.
    this.send(update);
  }
}
