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

/** Most puts in one commit (etcd's default `--max-txn-ops`). */
const MAX_OPS_PER_COMMIT = 128;

/** Consecutive groups of items whose puts add up to at most `maxOps` (an item larger than that alone). */
function chunksOf<T extends { puts: readonly unknown[] }>(items: readonly T[], maxOps: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let ops = 0;
  for (const item of items) {
    if (current.length > 0 && ops + item.puts.length > maxOps) {
      chunks.push(current);
      current = [];
      ops = 0;
    }
    current.push(item);
    ops += item.puts.length;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
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
    const moved: Array<{ id: string; next: PublishedWeight; puts: PutOp[] }> = [];
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
      moved.push({ id, next, puts });
    }
    const changed: string[] = [];
    for (const chunk of chunksOf(moved, MAX_OPS_PER_COMMIT)) {
      // Instances that move together (a warm-up cohort) are written together: one commit, one watch
      // batch, one zone change. If one lease just expired the commit fails whole, and its instances
      // are written one by one so that one instance cannot fail the others.
      const together = await this.deps.store.commit({ puts: chunk.flatMap((m) => m.puts) });
      const written = together.ok ? chunk : [];
      if (!together.ok) {
        for (const m of chunk) if ((await this.deps.store.commit({ puts: m.puts })).ok) written.push(m);
      }
      for (const m of written) {
        this.written.set(m.id, m.next);
        changed.push(m.id);
      }
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
