import type { Clock } from '@agent-reach/sdk/clock';
import { Load } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { z } from 'zod';
import { followPrefix } from '../store/follow-prefix.js';
import { KEYS } from '../store/keys.js';
import type { KeyValue, RegistryStore, Watch, WatchEvent } from '../store/store.js';
import type { LivenessEntry, LivenessTable } from './liveness-table.js';

/**
 * One instance's liveness as the replica that took its heartbeat saw it. Ages, not times: monotonic
 * clocks of two machines cannot be compared, and wall clocks are for display.
 */
export const LivenessFact = z.object({
  /** The instance. */
  id: z.string(),
  seq: z.number().int().min(0),
  /** Milliseconds between the heartbeat and the write, on the writer's monotonic clock. */
  age_ms: z.number().min(0),
  /** Wall-clock ms of the heartbeat, for display only. */
  at: z.number(),
  load: Load,
  /** The instance's lease: a fact of an earlier registration of the same id says nothing about this one. */
  lease: z.string(),
});
export type LivenessFact = z.infer<typeof LivenessFact>;

/** What one flush stores under `KEYS.livenessBatch(by, n)`: up to `FACTS_PER_BATCH` facts. */
export const LivenessBatch = z.object({
  /** The replica that accepted the heartbeats. */
  by: z.string(),
  facts: z.array(LivenessFact),
});
export type LivenessBatch = z.infer<typeof LivenessBatch>;

/**
 * Most facts in one stored value: ~120 bytes each, so a batch stays far below etcd's request limit
 * (1.5 MiB by default) and one flush of 100,000 heartbeats is 100 puts, not 100,000.
 */
const FACTS_PER_BATCH = 1000;

/** Lets queued heartbeats, DNS queries and watch deliveries run between two commits of a flush. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface SharedFactsDeps {
  store: Pick<RegistryStore, 'commit' | 'watch' | 'grantLease' | 'keepAlive'>;
  table: LivenessTable;
  clock: Pick<Clock, 'now' | 'every'>;
  logger: Logger;
  replicaId: string;
  /** How often accepted heartbeats are written, together. */
  flushMs: number;
  /** TTL of the replica's lease that the batches are bound to: they go a while after the replica does. */
  leaseTtlMs: number;
  /** Most facts in one batch. @default 1000 */
  factsPerBatch?: number;
}

/**
 * Shares liveness facts between registry replicas through the store: heartbeats this replica accepts
 * are written in batches every `flushMs`, and every replica applies the facts of the others it
 * watches to its liveness table. So the leader's tiers and weights, its sweeps and a new leader after a
 * failover all see the heartbeats every replica took, not only their own.
 *
 * A flush writes its facts as numbered batch values under the replica's own prefix (batch 0, 1, … of
 * up to 1000 facts, each one put), replacing the batches of the flush before: a heartbeat costs the
 * store a share of one put, not a put, a key and a watch event of its own. The batches are bound to a
 * lease of the replica (kept alive by its flushes), so a replica that is gone leaves nothing behind.
 */
export class SharedFacts {
  private readonly dirty = new Map<string, LivenessEntry>();
  /** Where this replica's batches live: its own, echoed by the watch, are skipped unparsed. */
  private readonly ownPrefix: string;
  private watch: Watch | undefined;
  private stopTimer: (() => void) | undefined;
  private flushing: Promise<void> | undefined;
  private lease: string | undefined;
  private leaseKeptAt = Number.NEGATIVE_INFINITY;
  /** Batches the last flush wrote: those past the next flush's last one are deleted. */
  private batches = 0;
  /** Facts written and applied from other replicas, commits (one per batch), for metrics and the benchmark. */
  readonly counts = { written: 0, commits: 0, applied: 0, failedFlushes: 0 };

  private constructor(private readonly deps: SharedFactsDeps) {
    this.ownPrefix = KEYS.livenessOf(deps.replicaId);
  }

  /** Loads the facts in the store, follows the prefix and starts the flush timer. */
  static async start(deps: SharedFactsDeps): Promise<SharedFacts> {
    const facts = new SharedFacts(deps);
    facts.watch = await followPrefix(deps.store, KEYS.livenessPrefix, {
      load: (snapshot: KeyValue[]) =>
        facts.apply(snapshot.map(({ key, value }) => ({ type: 'put', key, value }) as const)),
      apply: (events) => facts.apply(events),
    });
    facts.stopTimer = deps.clock.every(deps.flushMs, () => void facts.flush());
    return facts;
  }

  /** Marks an accepted heartbeat for the next flush (the newest one of an instance wins). */
  note(entry: LivenessEntry): void {
    this.dirty.set(entry.instanceId, entry);
  }

  /** Writes every noted heartbeat now; overlapping calls share the flush in progress. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Stops the timer and the watch after a last flush. */
  async close(): Promise<void> {
    this.stopTimer?.();
    await this.flush().catch(() => undefined);
    await this.watch?.close();
  }

  private async write(): Promise<void> {
    if (this.dirty.size === 0) return;
    const entries = [...this.dirty.values()];
    this.dirty.clear();
    const now = this.deps.clock.now();
    const perBatch = this.deps.factsPerBatch ?? FACTS_PER_BATCH;
    let written = 0;
    try {
      const lease = await this.replicaLease(now);
      for (let n = 0; written < entries.length; n++) {
        // A flush of a large fleet is many commits: one at a time, so it never holds the API for long.
        if (n > 0) await yieldToEventLoop();
        const chunk = entries.slice(written, written + perBatch);
        const batch: LivenessBatch = { by: this.deps.replicaId, facts: chunk.map((e) => this.fact(e, now)) };
        const key = KEYS.livenessBatch(this.deps.replicaId, n);
        this.counts.commits++;
        const result = await this.deps.store.commit({ puts: [{ key, value: JSON.stringify(batch), lease }] });
        if (!result.ok) {
          // The replica's lease ran out (a long stall, a store that lost it): a new one next flush.
          this.lease = undefined;
          throw new Error('the lease of the liveness facts ended');
        }
        written += chunk.length;
        this.counts.written += chunk.length;
      }
    } catch (error) {
      // Keep the facts not written (newer heartbeats replace them) for the next flush.
      for (const entry of entries.slice(written)) if (!this.dirty.has(entry.instanceId)) this.note(entry);
      this.counts.failedFlushes++;
      this.deps.logger.warn({ err: error }, 'liveness facts not shared; retrying');
      return;
    }
    const count = Math.ceil(entries.length / perBatch);
    if (this.batches > count) {
      // Batches of an earlier, larger flush: older facts, already delivered.
      const deletes: string[] = [];
      for (let n = count; n < this.batches; n++) deletes.push(KEYS.livenessBatch(this.deps.replicaId, n));
      await this.deps.store.commit({ deletes }).catch(() => undefined);
    }
    this.batches = count;
  }

  /** The replica's lease for its batches: granted once, kept alive every third of its TTL by the flushes. */
  private async replicaLease(now: number): Promise<string> {
    const { store, leaseTtlMs } = this.deps;
    if (this.lease !== undefined && now - this.leaseKeptAt < leaseTtlMs / 3) return this.lease;
    if (this.lease !== undefined && (await store.keepAlive(this.lease)).ok) {
      this.leaseKeptAt = now;
      return this.lease;
    }
    // No lease yet, or it ended and its batches with it.
    this.lease = await store.grantLease(leaseTtlMs);
    this.leaseKeptAt = now;
    this.batches = 0;
    return this.lease;
  }

  private fact(entry: LivenessEntry, now: number): LivenessFact {
    return {
      id: entry.instanceId,
      seq: entry.lastSeq ?? 0,
      age_ms: Math.max(0, Math.round(now - entry.lastBeatMono)),
      at: entry.lastBeatWall ?? 0,
      load: entry.load,
      lease: entry.leaseId,
    };
  }

  private apply(events: readonly WatchEvent[]): void {
    for (const event of events) {
      if (event.type !== 'put' || !event.key.startsWith(KEYS.livenessPrefix)) continue;
      // This replica's own batches come back through the watch: nothing to apply (its table already
      // has them), so they are not parsed.
      if (event.key.startsWith(this.ownPrefix)) continue;
      const batch = parseBatch(event.value);
      if (!batch || batch.by === this.deps.replicaId) continue;
      for (const fact of batch.facts) {
        const entry = this.deps.table.get(fact.id);
        // A fact of an earlier registration of the same id says nothing about this one.
        if (!entry || entry.leaseId !== fact.lease) continue;
        const applied = this.deps.table.applyFact(entry, {
          seq: fact.seq,
          ageMs: fact.age_ms,
          wallAt: fact.at,
          load: fact.load,
        });
        if (applied) this.counts.applied++;
      }
    }
  }
}

function parseBatch(value: string): LivenessBatch | undefined {
  try {
    const parsed = LivenessBatch.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
