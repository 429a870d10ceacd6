import type { InstanceSource } from '../instances/instance-source.js';
import type { SrvWeights } from '../skydns/index.js';
import { followPrefix } from '../store/follow-prefix.js';
import { KEYS } from '../store/keys.js';
import type { RegistryStore, Watch, WatchEvent } from '../store/store.js';
import { PublishedWeight } from './compute-weight.js';
import type { WeightOf } from './weight-of.js';
import { weightOfFromSrvWeights } from './weight-of.js';

function parse(value: string): PublishedWeight | undefined {
  try {
    const parsed = PublishedWeight.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The published dynamic weights, kept current from `store.watch(KEYS.weightsPrefix)` on every replica,
 * so each replica's DNS zone (through `weightOf`) answers with the leader's weights.
 */
export class WeightTable {
  private readonly weights = new Map<string, PublishedWeight>();
  private readonly listeners = new Set<(instanceIds: string[]) => void>();
  private watch: Watch | null = null;
  /** The zone's weight function: the published weight, or the zone's default for an instance without one. */
  readonly weightOf: WeightOf = weightOfFromSrvWeights((id) => this.lookup(id));

  private constructor(private readonly instances: Pick<InstanceSource, 'get'> | undefined) {}

  /**
   * Starts watching the weights prefix; resolves once the snapshot is loaded. With `instances`, each
   * weight is keyed by its instance record's own id string (see `keyOf`).
   */
  static async start(
    store: Pick<RegistryStore, 'watch'>,
    instances?: Pick<InstanceSource, 'get'>,
  ): Promise<WeightTable> {
    const table = new WeightTable(instances);
    table.watch = await followPrefix(store, KEYS.weightsPrefix, {
      load: (snapshot) => table.apply(snapshot.map(({ key, value }) => ({ type: 'put', key, value }))),
      apply: (events) => table.apply(events),
    });
    return table;
  }

  get(instanceId: string): PublishedWeight | undefined {
    return this.weights.get(instanceId);
  }

  /** The SRV/SVCB override for one instance, in the shape the SkyDNS projection takes. */
  lookup(instanceId: string): SrvWeights | undefined {
    const published = this.weights.get(instanceId);
    return published && { priority: published.priority, weight: published.weight };
  }

  /** Calls `listener` with the instances whose weight changed; returns an unsubscribe function. */
  subscribe(listener: (instanceIds: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.watch?.close();
  }

  /**
   * The record's own id string when the instance is known: the weight pass looks every weight up by
   * `record.instance_id`, and a key that is that very string matches without reading either string
   * (the event's id is a slice that also holds the event's whole key alive). At 100,000 settled
   * weights the lookups with slices cost about half of a pass.
   */
  private keyOf(id: string): string {
    return this.instances?.get(id)?.instance_id ?? id;
  }

  private apply(events: WatchEvent[]): void {
    const changed: string[] = [];
    for (const event of events) {
      if (!event.key.startsWith(KEYS.weightsPrefix)) continue;
      const id = event.key.slice(KEYS.weightsPrefix.length);
      const weight = event.type === 'put' ? parse(event.value) : undefined;
      if (weight) this.weights.set(this.keyOf(id), weight);
      else this.weights.delete(id);
      changed.push(id);
    }
    if (changed.length > 0) for (const listener of this.listeners) listener(changed);
  }
}
