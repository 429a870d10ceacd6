import type { Clock } from '@agent-reach/sdk/clock';
import { Load } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { z } from 'zod';
import { followPrefix } from '../store/follow-prefix.js';
import { KEYS } from '../store/keys.js';
import type { KeyValue, PutOp, RegistryStore, Watch, WatchEvent } from '../store/store.js';
import type { LivenessEntry, LivenessTable } from './liveness-table.js';

/**
 * One instance's liveness as the replica that took its heartbeat saw it, stored under
 * `KEYS.liveness(id)` and bound to the instance's lease. Ages, not times: monotonic clocks of two
 * machines cannot be compared, and wall clocks are for display.
 */
export const LivenessFact = z.object({
  /** The replica that accepted the heartbeat (first in the stored JSON: see `SharedFacts.apply`). */
  by: z.string(),
  seq: z.number().int().min(0),
  /** Milliseconds between the heartbeat and the write, on the writer's monotonic clock. */
  age_ms: z.number().min(0),
  /** Wall-clock ms of the heartbeat, for display only. */
  at: z.number(),
  load: Load,
  lease: z.string(),
});
export type LivenessFact = z.infer<typeof LivenessFact>;

/** Most puts in one commit (etcd's default `--max-txn-ops`). */
const MAX_OPS_PER_COMMIT = 128;

/** Lets queued heartbeats, DNS queries and watch deliveries run between two commits of a flush. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface SharedFactsDeps {
  store: Pick<RegistryStore, 'commit' | 'watch'>;
  table: LivenessTable;
  clock: Pick<Clock, 'now' | 'every'>;
  logger: Logger;
  replicaId: string;
  /** How often accepted heartbeats are written, together. */
  flushMs: number;
}

/**
 * Shares liveness facts between registry replicas through the store: heartbeats this replica accepts
 * are written in batches every `flushMs`, and every replica (this one included) applies every fact it
 * watches to its liveness table. So the leader's tiers and weights, its sweeps and a new leader after a
 * failover all see the heartbeats every replica took, not only their own.
 */
export class SharedFacts {
  private readonly dirty = new Map<string, LivenessEntry>();
  /** How every fact this replica writes begins: its own facts, echoed by the watch, are skipped unparsed. */
  private readonly ownPrefix: string;
  private watch: Watch | undefined;
  private stopTimer: (() => void) | undefined;
  private flushing: Promise<void> | undefined;
  /** Facts written and facts applied from other replicas, for metrics and the benchmark. */
  readonly counts = { written: 0, commits: 0, applied: 0, failedFlushes: 0 };

  private constructor(private readonly deps: SharedFactsDeps) {
    this.ownPrefix = `{"by":${JSON.stringify(deps.replicaId)},`;
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
    for (let i = 0; i < entries.length; i += MAX_OPS_PER_COMMIT) {
      // A flush of a large fleet is many commits: one at a time, so it never holds the API for long.
      if (i > 0) await yieldToEventLoop();
      const chunk = entries.slice(i, i + MAX_OPS_PER_COMMIT);
      try {
        await this.commit(chunk.map((entry) => this.put(entry, now)));
      } catch (error) {
        // The store is unreachable: keep the facts (newer heartbeats replace them) for the next flush.
        for (const entry of entries.slice(i)) if (!this.dirty.has(entry.instanceId)) this.note(entry);
        this.counts.failedFlushes++;
        this.deps.logger.warn({ err: error }, 'liveness facts not shared; retrying');
        return;
      }
    }
  }

  // One commit for the chunk; if a lease just ended the commit fails whole, so then one by one.
  private async commit(puts: PutOp[]): Promise<void> {
    this.counts.commits++;
    if ((await this.deps.store.commit({ puts })).ok) {
      this.counts.written += puts.length;
      return;
    }
    for (const put of puts) {
      this.counts.commits++;
      if ((await this.deps.store.commit({ puts: [put] })).ok) this.counts.written++;
    }
  }

  private put(entry: LivenessEntry, now: number): PutOp {
    // `by` first: the JSON then starts with `ownPrefix` (JSON.stringify keeps the key order).
    const fact: LivenessFact = {
      by: this.deps.replicaId,
      seq: entry.lastSeq ?? 0,
      age_ms: Math.max(0, Math.round(now - entry.lastBeatMono)),
      at: entry.lastBeatWall ?? 0,
      load: entry.load,
      lease: entry.leaseId,
    };
    return { key: KEYS.liveness(entry.instanceId), value: JSON.stringify(fact), lease: entry.leaseId };
  }

  private apply(events: readonly WatchEvent[]): void {
    for (const event of events) {
      if (event.type !== 'put' || !event.key.startsWith(KEYS.livenessPrefix)) continue;
      // This replica's own facts come back through the watch: one per heartbeat it took, and nothing
      // to apply (its table already has them), so they are not parsed. A fact that starts otherwise is
      // parsed, and one whose `by` is this replica is still skipped below.
      if (event.value.startsWith(this.ownPrefix)) continue;
      const fact = parseFact(event.value);
      if (!fact || fact.by === this.deps.replicaId) continue;
      const entry = this.deps.table.get(event.key.slice(KEYS.livenessPrefix.length));
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

function parseFact(value: string): LivenessFact | undefined {
  try {
    const parsed = LivenessFact.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
