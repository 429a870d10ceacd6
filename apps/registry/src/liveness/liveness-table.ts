import type { Clock } from '@agent-reach/sdk/clock';
import type { InstanceState, Load } from '@agent-reach/sdk/protocol';
import type { LivenessSnapshot } from '../routing/routing-liveness.js';
import type { InstanceRecord } from '../store/records.js';
import type { WeightRoster } from '../weights/weight-roster.js';

const DEFAULT_LOAD: Load = { in_flight: 0, capacity: 1, queue: 0 };

/**
 * Whether two loads say the same. A heartbeat whose load equals the held one keeps the held object: at
 * 100,000 instances each new one lived until the instance's next heartbeat, seconds later, so every
 * heartbeat's load was copied by the young generation's collections and promoted to the old one.
 */
function sameLoad(a: Load, b: Load): boolean {
  return a.in_flight === b.in_flight && a.capacity === b.capacity && a.queue === b.queue;
}

/** Loads whose three counts are all below this are shared (one object per distinct load). */
const SHARED_LOAD_LIMIT = 1024;
/** Most distinct loads one table shares (~90 bytes each); past that a load is kept as it came. */
const SHARED_LOADS_MAX = 4096;

/**
 * One object per distinct load for every instance of a table. A heartbeat's load is parsed from its
 * body, and a new one was kept by its instance until the next different load: at 100,000 instances
 * each beating every few seconds, every heartbeat that moved a load (and every instance's first) left
 * an object the young generation copied and promoted, and each instance held one of its own. A fleet's
 * loads are few distinct values (small counts, one capacity per agent), so they are shared instead.
 */
class SharedLoads {
  readonly #byKey = new Map<number, Load>();

  /** The shared load equal to `load`, or `load` itself when its counts are large or the table is full. */
  of(load: Load): Load {
    const { in_flight, capacity, queue } = load;
    if (in_flight >= SHARED_LOAD_LIMIT || capacity >= SHARED_LOAD_LIMIT || queue >= SHARED_LOAD_LIMIT)
      return load;
    // Below 2^30: a small integer key, compared without allocating.
    const key = (in_flight * SHARED_LOAD_LIMIT + capacity) * SHARED_LOAD_LIMIT + queue;
    const shared = this.#byKey.get(key);
    if (shared !== undefined) return shared;
    if (this.#byKey.size >= SHARED_LOADS_MAX) return load;
    // A copy of its own: the parsed body's object is not kept, whatever else hangs off it.
    const copy: Load = { in_flight, capacity, queue };
    this.#byKey.set(key, copy);
    return copy;
  }
}

/**
 * Replica-local liveness of one live instance. The leader evicts it `heartbeatTimeoutMs` after its last
 * heartbeat (any replica's, through the shared facts); its store lease is only the dead-man switch.
 */
export class LivenessEntry {
  /** The last accepted seq; undefined until the first heartbeat after a registry restart (any seq is the baseline). */
  lastSeq: number | undefined;
  load: Load = DEFAULT_LOAD;
  /**
   * Monotonic ms of the last accepted heartbeat, or of registration / first sight. Initialised here with
   * a double (the constructor sets the real value): a field declared without a value is `undefined`
   * first, so V8 gives it a tagged slot and every heartbeat's store allocated a new heap number, which
   * at 100,000 instances lived until the instance's next heartbeat and was promoted. A double field is
   * written in place.
   */
  lastBeatMono = Number.NEGATIVE_INFINITY;
  /**
   * Monotonic ms of the registration (drives routing's warm-up): the earlier of this replica's first
   * sight and the record's wall-clock time turned monotonic then, so a registry restart does not warm
   * every instance up again and a later wall-clock step changes nothing.
   */
  readonly registeredMono: number = Number.NEGATIVE_INFINITY;
  /**
   * Monotonic ms at which this replica last refreshed (or granted) the instance's lease; -Infinity when
   * it never did here, so the first heartbeat this replica takes refreshes it.
   */
  leaseKeptMono = Number.NEGATIVE_INFINITY;
  /**
   * Wall-clock ms of the last accepted heartbeat, -Infinity before the first. A number, never null: a
   * field that once held null boxes every number stored in it, one new heap number per heartbeat, which
   * at 100,000 instances lived until the next and was promoted; a number field is written in place. And
   * a double from the start, not a small integer (-1): the first wall-clock time stored then changed
   * the field's representation, which deprecates the hidden class of every entry made before it, so at
   * 100,000 instances each one's first heartbeat paid a migration of its entry (and a new heap number).
   */
  private beatWallMs = Number.NEGATIVE_INFINITY;
  /** Set by deregister so the delete that follows reads as `deregistered`, not `unavailable`. */
  deregistering = false;
  /** The instance source lists this entry's registration (its watch delivered it), so a weight pass weighs it. */
  listed = false;

  constructor(
    /** The stored record, kept so a tombstone can still show the instance once it is gone. */
    readonly record: InstanceRecord,
    lastSeq: number | undefined,
    nowMono: number,
    nowWall: number,
  ) {
    this.lastSeq = lastSeq;
    this.lastBeatMono = nowMono;
    this.registeredMono = nowMono - Math.max(0, nowWall - record.registered_at);
  }

  /** Wall-clock ms of the last accepted heartbeat, for display only; null before the first. */
  get lastBeatWall(): number | null {
    return this.beatWallMs === Number.NEGATIVE_INFINITY ? null : this.beatWallMs;
  }

  set lastBeatWall(wallMs: number) {
    this.beatWallMs = wallMs;
  }

  // Read from the record, not copied into three fields of every entry (24 bytes per instance).
  get instanceId(): string {
    return this.record.instance_id;
  }

  get leaseId(): string {
    return this.record.lease_id;
  }

  get tokenHash(): string {
    return this.record.lease_token_hash;
  }
}

/** A registration that is gone, kept a while so list and get can still show how it ended. */
export interface Tombstone {
  record: InstanceRecord;
  entry: LivenessEntry;
  state: Extract<InstanceState, 'unavailable' | 'deregistered'>;
  goneAtMono: number;
}

/** What the table says of one instance (routing's `LivenessSnapshot`, with the registration time always set). */
type TableSnapshot = LivenessSnapshot & { registeredAt: number };

const TOMBSTONE_LIMIT = 1024;
const TOMBSTONE_TTL_MS = 10 * 60_000;

/** Liveness of every live instance this replica knows: last seq, load, last heartbeat, state. */
export class LivenessTable implements WeightRoster<LivenessEntry> {
  private readonly entries = new Map<string, LivenessEntry>();
  private readonly tombstones = new Map<string, Tombstone>();
  private readonly loads = new SharedLoads();
  // The listed entries in map order, made again at the first `listed()` after a change.
  private listedEntries: LivenessEntry[] | null = null;

  constructor(
    private readonly clock: Clock,
    /** No heartbeat for longer than this (interval + grace) makes an instance suspect. */
    readonly suspectAfterMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(instanceId: string): LivenessEntry | undefined {
    return this.entries.get(instanceId);
  }

  values(): IterableIterator<LivenessEntry> {
    return this.entries.values();
  }

  /**
   * Starts tracking a registration; `fresh` (just registered here) makes seq 1 the first acceptable
   * heartbeat; `listed`: the instance source delivered this record (see `listed()`).
   */
  track(record: InstanceRecord, fresh: boolean, listed = false): LivenessEntry {
    const existing = this.entries.get(record.instance_id);
    if (existing && existing.leaseId === record.lease_id) {
      if (fresh && existing.lastSeq === undefined && existing.lastBeatWall === null) existing.lastSeq = 0;
      if (listed && !existing.listed) {
        existing.listed = true;
        this.listedEntries = null;
      }
      return existing;
    }
    const entry = new LivenessEntry(record, fresh ? 0 : undefined, this.clock.now(), this.clock.wallNow());
    entry.listed = listed;
    this.entries.set(record.instance_id, entry);
    this.tombstones.delete(record.instance_id);
    this.listedEntries = null;
    return entry;
  }

  /**
   * The entries whose registration the instance source lists (tracked with `listed`), in map order: a
   * weight pass walks these rather than looking each record's entry up (`WeightRoster`). An entry of the
   * same lease holds a record equal to the source's (records are written once per lease).
   */
  listed(): readonly LivenessEntry[] {
    if (this.listedEntries === null) {
      const listed: LivenessEntry[] = [];
      for (const entry of this.entries.values()) if (entry.listed) listed.push(entry);
      this.listedEntries = listed;
    }
    return this.listedEntries;
  }

  recordOf(entry: LivenessEntry): InstanceRecord {
    return entry.record;
  }

  /** `snapshot` of a live entry at hand, without the lookup by id. */
  livenessOf(entry: LivenessEntry, now: number): TableSnapshot {
    const state = this.stateOf(entry, now);
    return entry.lastBeatWall === null
      ? { state, registeredAt: entry.registeredMono }
      : { state, load: entry.load, registeredAt: entry.registeredMono };
  }

  /** Records an accepted heartbeat. */
  beat(entry: LivenessEntry, load: Load): void {
    if (!sameLoad(entry.load, load)) entry.load = this.loads.of(load);
    entry.lastBeatMono = this.clock.now();
    entry.lastBeatWall = this.clock.wallNow();
  }

  /**
   * Applies a heartbeat another replica (or this one, echoed by the store) accepted: a newer seq moves
   * seq and load; any seq moves the last beat forward to `ageMs` before now. Returns whether anything moved.
   */
  applyFact(entry: LivenessEntry, fact: { seq: number; ageMs: number; wallAt: number; load: Load }): boolean {
    const beatAt = this.clock.now() - Math.max(0, fact.ageMs);
    const newer = entry.lastSeq === undefined || fact.seq > entry.lastSeq;
    if (!newer && (fact.seq < entry.lastSeq! || beatAt <= entry.lastBeatMono)) return false;
    if (newer) {
      entry.lastSeq = fact.seq;
      if (!sameLoad(entry.load, fact.load)) entry.load = this.loads.of(fact.load);
      entry.lastBeatWall = Math.max(entry.lastBeatWall ?? 0, fact.wallAt);
    }
    if (beatAt > entry.lastBeatMono) entry.lastBeatMono = beatAt;
    return true;
  }

  /**
   * Counts every instance's silence from `now` at the latest. A replica that has just become leader
   * calls it: heartbeats other replicas took while nobody could write them down (the store without
   * quorum, a leader killed before its last flush) reach it a flush or a retry later, and judging
   * before they arrive would publish live agents as suspect. etcd does the same for its leases: a new
   * etcd leader extends every lease by its TTL. An instance that really went silent turns suspect one
   * `suspectAfterMs` after the takeover.
   */
  countSilenceFrom(now = this.clock.now()): void {
    for (const entry of this.entries.values()) if (entry.lastBeatMono < now) entry.lastBeatMono = now;
  }

  /** Stops tracking a registration whose records are gone, keeping a tombstone that says how it ended. */
  remove(instanceId: string): void {
    const entry = this.entries.get(instanceId);
    if (!entry) return;
    this.entries.delete(instanceId);
    this.listedEntries = null;
    const state = entry.deregistering ? 'deregistered' : 'unavailable';
    this.tombstones.set(instanceId, { record: entry.record, entry, state, goneAtMono: this.clock.now() });
    if (this.tombstones.size > TOMBSTONE_LIMIT) {
      this.tombstones.delete(this.tombstones.keys().next().value as string);
    }
  }

  /** The state of a live entry at monotonic time `now`. */
  stateOf(entry: LivenessEntry, now = this.clock.now()): 'healthy' | 'suspect' | 'deregistered' {
    if (entry.deregistering) return 'deregistered';
    return now - entry.lastBeatMono > this.suspectAfterMs ? 'suspect' : 'healthy';
  }

  /** Recently gone registrations, newest last; stale tombstones are dropped on the way. */
  gone(): Tombstone[] {
    const oldest = this.clock.now() - TOMBSTONE_TTL_MS;
    for (const [id, tombstone] of this.tombstones) {
      if (tombstone.goneAtMono >= oldest) break;
      this.tombstones.delete(id);
    }
    return [...this.tombstones.values()];
  }

  tombstone(instanceId: string): Tombstone | undefined {
    const tombstone = this.tombstones.get(instanceId);
    return tombstone && tombstone.goneAtMono >= this.clock.now() - TOMBSTONE_TTL_MS ? tombstone : undefined;
  }

  /** What routing reads about one instance at monotonic `now` (matches routing's `RoutingLiveness.snapshot`). */
  snapshot(instanceId: string, now = this.clock.now()): TableSnapshot | undefined {
    const entry = this.entries.get(instanceId);
    if (entry) return this.livenessOf(entry, now);
    const gone = this.tombstone(instanceId);
    return gone ? { state: gone.state, registeredAt: gone.entry.registeredMono } : undefined;
  }

  /** Live instances by state, for metrics. */
  counts(): { healthy: number; suspect: number } {
    const now = this.clock.now();
    let suspect = 0;
    let healthy = 0;
    for (const entry of this.entries.values()) {
      if (entry.deregistering) continue;
      if (now - entry.lastBeatMono > this.suspectAfterMs) suspect++;
      else healthy++;
    }
    return { healthy, suspect };
  }
}
