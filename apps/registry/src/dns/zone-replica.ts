import type { Declaration } from '@agent-reach/sdk/protocol';
import { SharedParts } from '../instances/shared-parts.js';
import type { InstanceRecord } from '../store/records.js';
import {
  entryFromData,
  type InstanceEntry,
  type InstanceEntryData,
  instanceEntry,
} from './instance-entry.js';
import { type InstanceWeights, LiveZone, type ZoneSettings } from './live-zone.js';
import type { SnapshotProvider } from './packet-handler.js';
import { SharedWeights } from './shared-weights.js';
import { type FrozenZone, freezeZone, type Pause } from './zone-file.js';
import type { ZoneSnapshot } from './zone-snapshot.js';

/**
 * One published instance as data, with the weights the zone gives it: its registration (a new
 * replica's full copy, `Zone.everything`: the replica encodes it, not the main thread) or, for a
 * change, the entry the main thread's zone already encoded (`InstanceEntryData`: nothing is encoded
 * twice).
 */
export type PublishedInstance =
  | { record: InstanceRecord; weights: InstanceWeights }
  | { entry: InstanceEntryData; weights: InstanceWeights };

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

/**
 * A copy of a Zone built from ZoneUpdates instead of a store watch: what the responder thread answers
 * from. It lays out the same zone as the Zone (the same LiveZone, serial and weights).
 */
export class ZoneReplica implements SnapshotProvider {
  private readonly live: LiveZone;
  private serial = 0;
  private cached: ZoneSnapshot | undefined;
  /** Updates that arrived while an export was freezing the zone, applied once it is done. */
  private held: ZoneUpdate[] = [];
  /** Records arrive as clones, each with its own declaration: one declaration per version is kept, as the instance cache does. */
  private readonly shared = new SharedParts();
  /** Each update's weights arrive as copies: equal ones are kept as one object, as the Zone keeps them. */
  private readonly weights = new SharedWeights();
  private freezing = 0;

  constructor(private readonly settings: ZoneSettings) {
    this.live = new LiveZone(settings);
  }

  /** The declaration this replica shares for `declaration`'s version when equal, else `declaration` (no holder counted). */
  sharedDeclaration(declaration: Declaration): Declaration {
    return this.shared.sharedDeclaration(declaration);
  }

  /** The weights object this replica keeps equal to `weights`. */
  sharedWeights(weights: InstanceWeights): InstanceWeights {
    return this.weights.intern(weights);
  }

  /** Applies one batch; the next snapshot() reflects it (after any freeze under way). */
  apply(update: ZoneUpdate): void {
    if (this.freezing > 0) this.held.push(update);
    else this.applyNow(update);
  }

  /**
   * Freezes the zone for an export, `pause` awaited between slices so answers go on meanwhile;
   * updates that arrive before it is done are held and then applied in order.
   */
  async freeze(pause: Pause): Promise<FrozenZone> {
    this.freezing++;
    try {
      return await freezeZone(this.snapshot(), pause);
    } finally {
      if (--this.freezing === 0) {
        const held = this.held;
        this.held = [];
        for (const update of held) this.applyNow(update);
      }
    }
  }

  private applyNow(update: ZoneUpdate): void {
    for (const id of update.deleted) this.forget(id);
    for (const put of update.put) {
      const id = 'entry' in put ? put.entry.name : put.record.instance_id;
      const old = this.live.entry(id);
      if (old !== undefined) this.shared.release(old);
      const entry = this.entryOf(put);
      if (entry !== undefined) this.live.put(entry, this.weights.intern(put.weights));
      else this.live.delete(id);
    }
    for (const [id, weights] of update.weights) this.live.setWeights(id, this.weights.intern(weights));
    this.live.commit();
    this.serial = update.serial;
    this.cached = undefined;
  }

  /** The instance laid out from `put`, holding its version's shared declaration. */
  private entryOf(put: PublishedInstance): InstanceEntry | undefined {
    const { apex, ttl } = this.settings;
    if ('entry' in put) {
      put.entry.declaration = this.shared.adoptDeclaration(put.entry.declaration);
      return entryFromData(put.entry, apex, ttl);
    }
    const { record } = put;
    // The entry keeps the shared declaration and the port; the rest of the clone is dropped.
    this.shared.adopt(record);
    // The zone only sends what it could encode, so this fails only if the two disagree.
    const entry = instanceEntry(record, apex, ttl);
    if (entry.ok) return entry.value;
    this.shared.release(record);
    return undefined;
  }

  /** Deletes an instance and lets go of its shared declaration. */
  private forget(id: string): void {
    const old = this.live.entry(id);
    if (old === undefined) return;
    this.shared.release(old);
    this.live.delete(id);
  }

  /** The zone as of the last applied update. */
  snapshot(): ZoneSnapshot {
    this.cached ??= this.live.snapshot(this.serial);
    return this.cached;
  }
}

/**
 * Puts and deletes per slice: a put cost the replica ~30–60 µs of CPU under churn at 1,000 instances
 * (session 13), and 16 puts 0.8–3.8 ms at 100,000 on the loaded machine (session 14).
 */
export const SLICE_CHANGES = 8;
/**
 * Weight changes per slice: each patches a few records in place, ~20–35 µs at 100,000 instances
 * (session 14, loaded machine: a slice of 256 took 5–9 ms of CPU, longer than the 5 ms DNS p99 target).
 */
export const SLICE_WEIGHTS = 32;

/**
 * `update` cut into updates of at most SLICE_CHANGES puts and deletes or SLICE_WEIGHTS weight changes, in order (deletes,
 * puts, weights), each with the update's serial: the responder applies one per event-loop turn, so a
 * query never waits behind a whole registration burst or a weight pass over the fleet. Applied in
 * order, the slices leave a replica as the whole update does; between two slices it holds a prefix of
 * the changes (each instance's records complete). An update that is already small is returned as is.
 */
export function sliceUpdate(update: ZoneUpdate): ZoneUpdate[] {
  const { serial, put, weights, deleted } = update;
  if (put.length + deleted.length <= SLICE_CHANGES && weights.length <= SLICE_WEIGHTS) return [update];
  const slices: ZoneUpdate[] = [];
  const empty = (): ZoneUpdate => ({ serial, put: [], weights: [], deleted: [] });
  for (let i = 0; i < deleted.length; i += SLICE_CHANGES)
    slices.push({ ...empty(), deleted: deleted.slice(i, i + SLICE_CHANGES) });
  for (let i = 0; i < put.length; i += SLICE_CHANGES)
    slices.push({ ...empty(), put: put.slice(i, i + SLICE_CHANGES) });
  for (let i = 0; i < weights.length; i += SLICE_WEIGHTS)
    slices.push({ ...empty(), weights: weights.slice(i, i + SLICE_WEIGHTS) });
  return slices;
}
