import type { Clock } from '../clock/index.js';
import type { InstanceSource } from '../instances/instance-source.js';
import { skydnsEntries } from '../skydns/index.js';
import { KEYS } from '../store/keys.js';
import type { PutOp, RegistryStore } from '../store/store.js';
import type { Router } from './router.js';
import type { WeightTable } from './weight-table.js';
import { computeWeight, type PublishedWeight, shouldRepublish } from './weights.js';

/** What the leader's weight publication reads and writes. */
export interface WeightPublisherDeps {
  store: Pick<RegistryStore, 'commit'>;
  source: InstanceSource;
  router: Pick<Router, 'factorsOf'>;
  /** What is published now (every replica's watch of the weights prefix). */
  table: Pick<WeightTable, 'get'>;
  clock: Pick<Clock, 'now' | 'wallNow' | 'every'>;
  isLeader: () => boolean;
  /** When set, the instance's SkyDNS messages are rewritten with the weight, so stock CoreDNS serves it too. */
  skydns?: { zone: string; ttlSec: number };
}

/**
 * The leader's loop that turns health, load and success rate into SRV weights / SVCB priorities and
 * writes them under `KEYS.weight(id)` (bound to the instance's lease) only when they moved enough.
 */
export class WeightPublisher {
  // What this leader wrote and the watch may not have delivered yet.
  private readonly written = new Map<string, PublishedWeight>();

  constructor(private readonly deps: WeightPublisherDeps) {}

  /** One pass over every live instance; returns the ids whose weight was written. */
  async publishOnce(): Promise<string[]> {
    if (!this.deps.isLeader()) {
      this.written.clear();
      return [];
    }
    const now = this.deps.clock.now();
    const wallNow = this.deps.clock.wallNow();
    const changed: string[] = [];
    for (const record of this.deps.source.all()) {
      const factors = this.deps.router.factorsOf(record, now);
      if (!factors) continue;
      const id = record.instance_id;
      const published = this.written.get(id) ?? this.deps.table.get(id);
      const next = computeWeight(factors, published, wallNow);
      if (!shouldRepublish(published, next)) continue;
      const lease = record.lease_id;
      const puts: PutOp[] = [{ key: KEYS.weight(id), value: JSON.stringify(next), lease }];
      const skydns = this.deps.skydns;
      if (skydns) {
        const weights = { priority: next.priority, weight: next.weight };
        for (const entry of skydnsEntries(record, skydns.zone, skydns.ttlSec, weights))
          puts.push({ ...entry, lease });
      }
      // One commit per instance: an instance whose lease just expired must not fail the others.
      const result = await this.deps.store.commit({ puts });
      if (!result.ok) continue;
      this.written.set(id, next);
      changed.push(id);
    }
    for (const id of this.written.keys()) if (!this.deps.source.get(id)) this.written.delete(id);
    return changed;
  }

  /** Publishes every `intervalMs` while leader; returns a stop function. */
  start(intervalMs: number, onError: (error: unknown) => void = () => {}): () => void {
    let running = false;
    return this.deps.clock.every(intervalMs, () => {
      if (running) return;
      running = true;
      this.publishOnce()
        .catch(onError)
        .finally(() => {
          running = false;
        });
    });
  }
}
