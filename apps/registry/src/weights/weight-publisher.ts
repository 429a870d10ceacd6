import type { Clock } from '@agent-reach/sdk/clock';
import type { InstanceSource } from '../instances/instance-source.js';
import type { Router } from '../routing/router.js';
import type { LivenessSnapshot } from '../routing/routing-liveness.js';
import { KEYS } from '../store/keys.js';
import type { InstanceRecord } from '../store/records.js';
import { MAX_OPS_PER_COMMIT, type PutOp, type RegistryStore } from '../store/store.js';
import {
  type PublishedWeight,
  publishedWeight,
  shouldRepublish,
  tierOf,
  WEIGHT_TIERS,
  type Weighed,
  type WeightInputs,
  weighInputs,
} from './compute-weight.js';
import { instanceSkydns, type SkydnsTarget } from './instance-skydns.js';
import { defaultWeightOf } from './weight-of.js';
import { sourceRoster, type WeightRoster } from './weight-roster.js';
import type { WeightTable } from './weight-table.js';

/** What the leader's weight publication reads and writes. */
export interface WeightPublisherDeps {
  store: Pick<RegistryStore, 'commit'>;
  source: InstanceSource;
  router: Pick<Router, 'factorsOf' | 'tierFactorsOf'>;
  /** What is published now (every replica's watch of the weights prefix). */
  table: Pick<WeightTable, 'get'>;
  clock: Pick<Clock, 'now' | 'wallNow' | 'every'>;
  isLeader: () => boolean;
  /**
   * The instances a pass walks, with their liveness at hand (the registry's `LivenessTable`).
   * @default the source's records, each one's liveness looked up by routing
   */
  roster?: WeightRoster<unknown>;
  /** When set, the instance's SkyDNS SRV messages are rewritten with the weight, so stock CoreDNS serves it too. */
  skydns?: SkydnsTarget;
  /**
   * Most instances whose weight alone moved that one pass writes; tier (priority) changes are always
   * written. @default 1000
   */
  maxWeightMovesPerPass?: number;
}

/** One instance whose weight moved enough to republish, before anything is built to write it. */
interface Move {
  weighed: Weighed;
  factors: WeightInputs;
  /** Its SRV/SVCB priority (the tier) moved, not only its weight. */
  tierMoved: boolean;
}

/** One instance whose weight moved: what to write for it. */
interface Moved {
  id: string;
  next: PublishedWeight;
  puts: PutOp[];
  /** Its SRV/SVCB priority (the tier) moved, not only its weight. */
  tierMoved: boolean;
}

/**
 * Most weight-only moves one pass writes (see `maxWeightMovesPerPass`). A fleet registered together
 * moves together: 100,000 new instances cross each warm-up step within the minute they registered in,
 * and writing every move at once took the store's commits from everything else (on etcd, heartbeats'
 * keep-alives wait for the writes before them). Capped, the next pass goes on from the first instance
 * the last one left, so every instance's weight still follows, only later.
 */
const MAX_WEIGHT_MOVES_PER_PASS = 1000;

/** Most instances a pass examines in one turn of the event loop when few of them moved. */
const EXAMINED_PER_TURN = 1024;

/** Lets queued DNS queries and HTTP requests run between two chunks of a weight pass. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The leader's loop that turns health, load and success rate into SRV weights / SVCB priorities and
 * writes them under `KEYS.weight(id)` (bound to the instance's lease) only when they moved enough.
 */
export class WeightPublisher {
  // What this leader wrote and the watch has not delivered yet (dropped once the table shows it).
  private readonly written = new Map<string, PublishedWeight>();
  // Set by the stop function of `start`: a pass in progress ends after its current chunk.
  private stopped = false;
  // Where the next pass starts in the instance list: the first instance the last pass examined over its budget.
  private resumeAt = 0;
  private readonly roster: WeightRoster<unknown>;

  constructor(private readonly deps: WeightPublisherDeps) {
    this.roster = deps.roster ?? sourceRoster(deps.source);
  }

  /**
   * One pass over every live instance; returns the ids whose weight was written: every tier change and
   * at most `maxWeightMovesPerPass` weight-only moves, from where the last pass left off. The pass goes in
   * chunks of at most 128 puts, each computed, committed and followed by a turn of the event loop, and
   * takes a turn every 1024 instances examined as well, so a pass over thousands of instances never
   * holds the DNS responder or the API for long, whether many weights moved or none.
   */
  async publishOnce(): Promise<string[]> {
    if (!this.deps.isLeader()) {
      this.written.clear();
      return [];
    }
    const now = this.deps.clock.now();
    const wallNow = this.deps.clock.wallNow();
    const changed: string[] = [];
    let chunk: Moved[] = [];
    let ops = 0;
    const flush = async (): Promise<void> => {
      for (const m of await this.write(chunk)) {
        this.written.set(m.id, m.next);
        changed.push(m.id);
      }
      chunk = [];
      ops = 0;
      await yieldToEventLoop();
    };
    const { roster } = this;
    const records = roster.listed();
    const start = records.length === 0 ? 0 : this.resumeAt % records.length;
    let budget = this.deps.maxWeightMovesPerPass ?? MAX_WEIGHT_MOVES_PER_PASS;
    let resumeAt: number | undefined;
    for (let examined = 1; examined <= records.length; examined++) {
      // A weight costs 1-2 µs to compute (measured at 10,000 instances): a pass that moved none held
      // the main thread for all of them, 12 ms at 10,000 and ten times that at 100,000.
      if (examined % EXAMINED_PER_TURN === 0) {
        await yieldToEventLoop();
        if (this.stopped || !this.deps.isLeader()) return changed;
      }
      const at = (start + examined - 1) % records.length;
      const item = records[at];
      const record = roster.recordOf(item);
      const live = roster.livenessOf(item, now);
      if (budget === 0) {
        // Over the budget only tier moves are written, so only the tier is weighed (no warm-up,
        // version or weight): in a mass warm-up nearly every instance is over the budget in every
        // pass. The next pass starts here.
        resumeAt ??= at;
        if (!this.tierMoves(record, now, live)) continue;
      }
      const move = this.move(record, now, live);
      if (move === undefined) continue;
      if (!move.tierMoved) {
        if (budget === 0) continue;
        budget--;
      }
      const moved = this.writesFor(record, move, wallNow);
      if (chunk.length > 0 && ops + moved.puts.length > MAX_OPS_PER_COMMIT) {
        await flush();
        if (this.stopped || !this.deps.isLeader()) return changed;
      }
      chunk.push(moved);
      ops += moved.puts.length;
    }
    if (chunk.length > 0) await flush();
    this.resumeAt = resumeAt ?? start;
    for (const id of this.written.keys()) if (!this.deps.source.get(id)) this.written.delete(id);
    return changed;
  }

  /** `record`'s new weight when it moved enough to republish, else undefined (`live`: its liveness, if at hand). */
  private move(record: InstanceRecord, now: number, live: LivenessSnapshot | undefined): Move | undefined {
    const factors = this.deps.router.factorsOf(record, now, live);
    if (!factors) return undefined;
    const published = this.published(record.instance_id);
    const weighed = weighInputs(factors, published);
    const shown = published ?? defaultWeightOf(record);
    // With none published, DNS shows the default (priority 10, the declaration's priority as weight).
    // A new, healthy instance at the start of its warm-up weighs 1000 × 0.9 (success prior) × 0.1 ×
    // priority/100 = 0.9 × priority, within the hysteresis of that default: a registration burst then
    // costs no weight writes until weights really move.
    if (!shouldRepublish(shown, weighed)) return undefined;
    return { weighed, factors, tierMoved: shown.priority !== weighed.priority };
  }

  /** Whether `record`'s tier (its SRV/SVCB priority) moved: `move(…).tierMoved` without weighing the weight. */
  private tierMoves(record: InstanceRecord, now: number, live: LivenessSnapshot | undefined): boolean {
    const inputs = this.deps.router.tierFactorsOf(record, now, live);
    if (!inputs) return false;
    const published = this.published(record.instance_id);
    const shown = published ?? defaultWeightOf(record);
    return WEIGHT_TIERS[tierOf(inputs, published)] !== shown.priority;
  }

  /** What to write for a move of `record`'s weight: its weight record and, with SkyDNS, its SRV messages. */
  private writesFor(record: InstanceRecord, move: Move, wallNow: number): Moved {
    const id = record.instance_id;
    const next = publishedWeight(move.weighed, move.factors, wallNow);
    const lease = record.lease_id;
    const puts: PutOp[] = [{ key: KEYS.weight(id), value: JSON.stringify(next), lease }];
    const skydns = this.deps.skydns;
    if (skydns) {
      for (const entry of instanceSkydns(record, skydns, 'weighted', next))
        puts.push({ key: entry.key, value: entry.value, lease });
    }
    return { id, next, puts, tierMoved: move.tierMoved };
  }

  /** Writes of this leader the watch has not delivered yet (each pass looks these up, then forgets the delivered). */
  get undelivered(): number {
    return this.written.size;
  }

  /**
   * What DNS shows for `id` as far as this leader knows: its own write until the watch delivers it,
   * then the table's. A delivered write is forgotten here, so at 100,000 instances this map does not
   * hold a second copy of every weight, nor make each pass look every one of them up again.
   */
  private published(id: string): PublishedWeight | undefined {
    const delivered = this.deps.table.get(id);
    const mine = this.written.get(id);
    if (mine === undefined) return delivered;
    if (
      delivered !== undefined &&
      delivered.updated_at === mine.updated_at &&
      delivered.weight === mine.weight &&
      delivered.priority === mine.priority
    ) {
      this.written.delete(id);
      return delivered;
    }
    return mine;
  }

  /**
   * Writes a chunk in one commit: instances that move together (a warm-up cohort) cost one watch
   * batch. If one lease just expired the commit fails whole, and the chunk's instances are written one
   * by one so that one instance cannot fail the others. Returns what was written.
   */
  private async write(chunk: Moved[]): Promise<Moved[]> {
    const together = await this.deps.store.commit({ puts: chunk.flatMap((m) => m.puts) });
    if (together.ok) return chunk;
    const written: Moved[] = [];
    for (const m of chunk) if ((await this.deps.store.commit({ puts: m.puts })).ok) written.push(m);
    return written;
  }

  /**
   * Publishes every `intervalMs` while leader; returns a stop function. Stopping ends a pass in
   * progress after its current chunk, and the returned promise settles once it has ended, so the
   * store can be closed without a pass failing on it.
   */
  start(intervalMs: number, onError: (error: unknown) => void = () => {}): () => Promise<void> {
    let pass: Promise<void> | undefined;
    this.stopped = false;
    const stopTimer = this.deps.clock.every(intervalMs, () => {
      if (pass !== undefined) return;
      pass = this.publishOnce()
        .then(
          () => undefined,
          (error: unknown) => {
            if (!this.stopped) onError(error);
          },
        )
        .finally(() => {
          pass = undefined;
        });
    });
    return async () => {
      this.stopped = true;
      stopTimer();
      await pass;
    };
  }
}
