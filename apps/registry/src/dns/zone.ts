import { publishedCapabilities, type ReachError } from '@agent-reach/sdk/protocol';
import type { InstanceChanges, InstanceSource } from '../instances/instance-source.js';
import type { InstanceRecord } from '../store/records.js';
import { defaultWeightOf, guardedWeightOf, type SrvWeight, type WeightOf } from '../weights/weight-of.js';
import { type InstanceEntry, instanceEntry } from './instance-entry.js';
import { type InstanceWeights, LiveZone, type ZoneSettings } from './live-zone.js';
import { normaliseZoneName } from './names.js';
import { SharedWeights } from './shared-weights.js';
import { exportOnThisThread, type ZoneExport } from './zone-file.js';
import type { ZoneUpdate } from './zone-replica.js';
import type { SoaTimers, ZoneSnapshot } from './zone-snapshot.js';

export type { InstanceWeights, ZoneSettings } from './live-zone.js';

/** What changed: registrations (`ids`), or the weights of the instances listed (only those that moved). */
export type ZoneChange =
  /** `entries`: those of the ids put and published, as this change encoded them. */
  { ids: readonly string[]; entries: readonly InstanceEntry[] } | { weights: readonly string[] };

const sameWeights = (a: InstanceWeights, b: InstanceWeights | undefined): boolean =>
  a === b || (b !== undefined && JSON.stringify(a) === JSON.stringify(b));

/** How the zone is named and timed. */
export interface ZoneOptions {
  /** Zone name, e.g. `agents.internal`. */
  zone: string;
  /** TTL of every record, in seconds; follows the heartbeat timeout. */
  ttlSeconds: number;
  /** Address published for `ns.<zone>` (the responder's), if it has a concrete one. */
  nameServerAddress?: string | undefined;
  /** @default priority 10, weight max(1, declaration priority) */
  weightOf?: WeightOf;
  /** SOA timers other than serial and minimum. @default refresh 3600, retry 600, expire 86400 */
  timers?: Partial<Omit<SoaTimers, 'minimum'>>;
  /** Wall-clock milliseconds, for SOA serials that keep increasing across restarts. @default Date.now */
  wallNow?: () => number;
  /** Told about registrations that cannot be published (and are left out). */
  onSkip?: (instanceId: string, error: ReachError) => void;
  /**
   * Whether this zone lays out the encoded zone (names, RRsets) itself: true for a responder on this
   * thread; false when the responder thread holds the only copy (fed by a ZoneFeed), and this zone
   * keeps just which instances are published and their weights. @default true
   */
  laidOut?: boolean;
}

/** What a Zone keeps of its published instances: the whole encoded zone, or only ids and weights. */
interface PublishedSet {
  put(entry: InstanceEntry, weights: InstanceWeights): void;
  delete(instanceId: string): void;
  setWeights(instanceId: string, weights: InstanceWeights): void;
  weights(instanceId: string): InstanceWeights | undefined;
  ids(): IterableIterator<string>;
  commit(): void;
}

/** The published instances' ids and weights, no records (they are the InstanceSource's) nor wire data. */
class PublishedWeights implements PublishedSet {
  private readonly byId = new Map<string, InstanceWeights>();

  put(entry: InstanceEntry, weights: InstanceWeights): void {
    this.byId.set(entry.name, weights);
  }

  delete(instanceId: string): void {
    this.byId.delete(instanceId);
  }

  setWeights(instanceId: string, weights: InstanceWeights): void {
    if (this.byId.has(instanceId)) this.byId.set(instanceId, weights);
  }

  weights(instanceId: string): InstanceWeights | undefined {
    return this.byId.get(instanceId);
  }

  ids(): IterableIterator<string> {
    return this.byId.keys();
  }

  commit(): void {}
}

const U32 = 2 ** 32;

/**
 * The live DNS zone: kept current from an InstanceSource's change stream (never by polling).
 * Each change patches only the names and records it touches (LiveZone); a snapshot is a view of
 * them at the current serial. Made with `laidOut: false` (the registry's default, where the
 * responder thread answers), it keeps no LiveZone: only the published ids, their weights, the serial
 * and the change stream, which is all a ZoneFeed needs; the records are the InstanceSource's.
 */
export class Zone {
  readonly apex: string;
  private readonly ttl: number;
  private readonly timers: SoaTimers;
  private readonly nameServerAddress: string | undefined;
  private readonly wallNow: () => number;
  private readonly onSkip: (instanceId: string, error: ReachError) => void;
  private weightOf: WeightOf;
  private readonly source: InstanceSource;
  /** A LiveZone when laid out (then `published` is it), else only ids and weights. */
  private live: LiveZone | undefined;
  private published: PublishedSet;
  private readonly listeners = new Set<(serial: number, change: ZoneChange) => void>();
  private readonly unsubscribe: () => void;
  private currentSerial: number;
  private cached: ZoneSnapshot | undefined;
  /** Where exports are made while a responder thread holds the encoded zone. */
  private exporter: (() => Promise<ZoneExport>) | undefined;
  /** Equal weights as one object: most instances carry the same few (six objects, ~250 bytes, each). */
  private readonly sharedWeights = new SharedWeights();

  constructor(source: InstanceSource, options: ZoneOptions) {
    this.apex = normaliseZoneName(options.zone);
    this.ttl = Math.max(1, Math.round(options.ttlSeconds));
    this.timers = { refresh: 3600, retry: 600, expire: 86_400, ...options.timers, minimum: this.ttl };
    this.nameServerAddress = options.nameServerAddress;
    this.wallNow = options.wallNow ?? Date.now;
    this.onSkip = options.onSkip ?? (() => {});
    this.weightOf = guardedWeightOf(options.weightOf ?? defaultWeightOf);
    this.currentSerial = Math.floor(this.wallNow() / 1000) % U32;
    this.source = source;
    this.live = options.laidOut === false ? undefined : new LiveZone(this.settings);
    this.published = this.live ?? new PublishedWeights();
    // Subscribe before reading the snapshot so no change falls between the two.
    this.unsubscribe = source.subscribe((changes) => this.apply(changes));
    for (const record of source.all()) this.put(record);
    this.published.commit();
  }

  /** Whether this zone holds the encoded zone itself (see `laidOut`). */
  get laidOut(): boolean {
    return this.live !== undefined;
  }

  /** The current SOA serial; it increases on every change. */
  get serial(): number {
    return this.currentSerial;
  }

  /**
   * The zone as it is now; the same object until something changes. A zone made with `laidOut:
   * false` lays itself out on the first call (O(instances)) and stays laid out: for tests and tools
   * on a registry whose responder thread holds the zone; the registry itself never asks.
   */
  snapshot(): ZoneSnapshot {
    this.cached ??= this.layOut().snapshot(this.currentSerial);
    return this.cached;
  }

  /**
   * The zone file at one serial, produced a piece at a time (`GET /v1/zone`): by the responder
   * thread while one serves this zone (`exportVia`), else from this zone's own snapshot.
   */
  export(): Promise<ZoneExport> {
    if (this.exporter !== undefined) return this.exporter();
    return Promise.resolve(exportOnThisThread(this.snapshot()));
  }

  /** Makes exports with `exporter` (the responder thread's), or again here when undefined. */
  exportVia(exporter: (() => Promise<ZoneExport>) | undefined): void {
    this.exporter = exporter;
  }

  /** Every published instance with its weights, at the current serial: a new replica's first update. */
  everything(): ZoneUpdate {
    const update: ZoneUpdate = { serial: this.currentSerial, put: [], weights: [], deleted: [] };
    for (const id of this.published.ids()) {
      const record = this.recordOf(id);
      const weights = this.published.weights(id);
      if (record !== undefined && weights !== undefined) update.put.push({ record, weights });
    }
    return update;
  }

  /** Replaces the weight function and republishes every SRV/SVCB priority and weight. */
  setWeightOf(weightOf: WeightOf): void {
    this.weightOf = guardedWeightOf(weightOf);
    this.weightsChanged();
  }

  /**
   * Republishes priorities and weights: of the instances named, or of all when none are named. Only
   * instances whose weights moved are patched and reported to listeners.
   */
  weightsChanged(instanceIds?: readonly string[]): void {
    const moved: string[] = [];
    for (const id of instanceIds ?? [...this.published.ids()]) {
      const record = this.recordOf(id);
      if (record === undefined) continue;
      const weights = this.weightsFor(record, publishedCapabilities(record.declaration));
      if (sameWeights(weights, this.published.weights(id))) continue;
      this.published.setWeights(id, weights);
      moved.push(id);
    }
    this.published.commit();
    this.changed({ weights: moved });
  }

  /** Name, TTL and SOA timers: everything but the instances and the serial. */
  get settings(): ZoneSettings {
    return { apex: this.apex, ttl: this.ttl, timers: this.timers, nameServerAddress: this.nameServerAddress };
  }

  /** Ids of the instances the zone publishes now. */
  instanceIds(): IterableIterator<string> {
    return this.published.ids();
  }

  /** The registration the zone publishes for `instanceId`, or undefined when it is not in the zone. */
  recordOf(instanceId: string): InstanceRecord | undefined {
    // The source applied the change before telling the zone, so its record is the one published.
    return this.published.weights(instanceId) === undefined ? undefined : this.source.get(instanceId);
  }

  /** The weights the zone gives a published instance now (the weight function's answers as data). */
  weightsOf(instanceId: string): InstanceWeights | undefined {
    return this.published.weights(instanceId);
  }

  /** Calls `listener` with the new serial and what changed after each change; returns an unsubscribe function. */
  onChange(listener: (serial: number, change: ZoneChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops following the source. */
  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }

  /** The LiveZone, laid out now from the published instances if this zone was made without one. */
  private layOut(): LiveZone {
    if (this.live !== undefined) return this.live;
    const live = new LiveZone(this.settings);
    for (const id of this.published.ids()) {
      const record = this.recordOf(id);
      const weights = this.published.weights(id);
      if (record === undefined || weights === undefined) continue;
      const entry = instanceEntry(record, this.apex, this.ttl);
      if (entry.ok) live.put(entry.value, weights);
    }
    live.commit();
    this.live = live;
    this.published = live;
    return live;
  }

  private apply(changes: InstanceChanges): void {
    for (const id of changes.deleted) this.published.delete(id);
    const entries: InstanceEntry[] = [];
    for (const record of changes.put) {
      const entry = this.put(record);
      if (entry !== undefined) entries.push(entry);
    }
    this.published.commit();
    this.changed({ ids: [...changes.deleted, ...changes.put.map((record) => record.instance_id)], entries });
  }

  private weightsFor(record: InstanceRecord, capabilities: readonly string[]): InstanceWeights {
    const generic = this.weightOf(record);
    const byCapability: Record<string, SrvWeight> = {};
    for (const capability of capabilities) byCapability[capability] = this.weightOf(record, capability);
    return this.sharedWeights.intern({ generic, byCapability });
  }

  /** Publishes `record`; returns its entry, or undefined when it cannot be published. */
  private put(record: InstanceRecord): InstanceEntry | undefined {
    const entry = instanceEntry(record, this.apex, this.ttl);
    if (entry.ok) {
      this.published.put(entry.value, this.weightsFor(record, entry.value.capabilities));
      return entry.value;
    }
    this.published.delete(record.instance_id);
    this.onSkip(record.instance_id, entry.error);
    return undefined;
  }

  private changed(change: ZoneChange): void {
    // Wall-clock seconds when they are ahead, so serials keep rising across restarts.
    const next = Math.max(this.currentSerial + 1, Math.floor(this.wallNow() / 1000));
    this.currentSerial = next % U32;
    this.cached = undefined;
    for (const listener of this.listeners) {
      try {
        listener(this.currentSerial, change);
      } catch {
        // A failing observer must not stop the zone from following the source.
      }
    }
  }
}
