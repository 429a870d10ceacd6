import { type FileHandle, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Clock, systemClock } from '@agent-reach/sdk/clock';
import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import type {
  KeyValue,
  Leadership,
  LeaseError,
  LeaseId,
  PutOp,
  RegistryStore,
  Watch,
  WatchEvent,
} from '../store.js';
import { ElectionQueue } from './election-queue.js';
import { valueText } from './held-value.js';
import { Journal, readJournal } from './journal.js';
import { journalFileFor, lockJournal } from './journal-lock.js';
import type { JournalPut, JournalRecord, JournalSnapshot, SnapshotPut } from './journal-records.js';
import { KvState } from './kv-state.js';
import { LeaseTable } from './lease-table.js';
import { WatchHub } from './watch-hub.js';

/** Options of the in-process store. */
export interface EmbeddedStoreOptions {
  /** `storage.path`: a directory, or a `.json` file whose name is the journal's base name. */
  path: string;
  /** @default systemClock */
  clock?: Clock;
  /** Longest wait before a change is written to the journal; 0 writes at the end of each turn of the event loop. @default 0 */
  flushIntervalMs?: number;
  /** Longest wait before written changes are fsynced. @default 1000 */
  syncIntervalMs?: number;
  /**
   * `storage.fsync_before_ack`: a commit or revoke resolves only once the journal bytes holding it are
   * fsynced (all changes of one event-loop turn, or of the previous fsync's duration, share one fsync);
   * `syncIntervalMs` is then unused. A lease grant resolves at once: its record precedes, and is synced
   * with, the first commit that binds a key to it. @default false
   */
  fsyncBeforeAck?: boolean;
  /** How the journal reaches the disk (`handle.datasync()`): the seam through which tests count and fail fsyncs. */
  datasync?: (handle: FileHandle) => Promise<void>;
  /** Least journal growth between two snapshot rewrites (which also wait for two thirds of it to be superseded). @default 4 MiB */
  compactMinBytes?: number;
  /** Told about background failures (journal writes, watch listeners that throw). */
  onError?: (error: unknown) => void;
}

const badRequest = (message: string) => new ReachError('BAD_REQUEST', message);

function checkKey(key: unknown, what: string): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) throw badRequest(`${what} must be a non-empty string`);
}

/** etcd semantics in one process: leases on the monotonic clock, atomic commits, watches, elections, a journal. */
export class EmbeddedStore implements RegistryStore {
  readonly kind = 'embedded' as const;
  // In-process: nothing but this registry can read it.
  readonly externalReaders = false;
  readonly #clock: Clock;
  // Replaced whole when a failed fsync rolls the store back to its journal (`#rollBack`).
  #leases: LeaseTable;
  #kv: KvState;
  readonly #hub: WatchHub;
  readonly #elections = new ElectionQueue();
  readonly #onError: (error: unknown) => void;
  readonly #fsyncBeforeAck: boolean;
  #journal: Journal | undefined;
  /** Set once a failed write or fsync made the store roll back to what the journal holds on disk. */
  #rolledBack: Promise<void> | undefined;
  #release: (() => void) | undefined;
  #nextLease = 1 + Math.floor(Math.random() * 2 ** 40);
  #closed = false;

  private constructor(clock: Clock, onError: (error: unknown) => void, fsyncBeforeAck: boolean) {
    this.#clock = clock;
    this.#onError = onError;
    this.#fsyncBeforeAck = fsyncBeforeAck;
    this.#leases = new LeaseTable(clock, (ids) => this.#expire(ids));
    this.#kv = new KvState(this.#leases);
    this.#hub = new WatchHub(onError);
  }

  /** Opens (or creates) the store whose journal lives at `options.path`, restoring its keys. */
  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    const onError = options.onError ?? ((error: unknown) => console.error('[embedded-store]', error));
    const fsyncBeforeAck = options.fsyncBeforeAck ?? false;
    const store = new EmbeddedStore(options.clock ?? systemClock, onError, fsyncBeforeAck);
    const file = journalFileFor(options.path);
    await mkdir(dirname(file), { recursive: true });
    store.#release = lockJournal(file);
    try {
      const found = await readJournal(file);
      for (const record of found.records) store.#replay(record);
      store.#journal = await Journal.create(
        file,
        {
          snapshot: () => store.#snapshot(),
          liveBytes: () => store.#snapshotBytes(),
          ...(options.flushIntervalMs === undefined ? {} : { flushIntervalMs: options.flushIntervalMs }),
          ...(options.syncIntervalMs === undefined ? {} : { syncIntervalMs: options.syncIntervalMs }),
          ...(options.compactMinBytes === undefined ? {} : { compactMinBytes: options.compactMinBytes }),
          ...(options.datasync === undefined ? {} : { datasync: options.datasync }),
          syncEachWrite: fsyncBeforeAck,
          onError,
        },
        found,
      );
    } catch (error) {
      store.#leases.close();
      store.#release();
      throw error;
    }
    return store;
  }

  async grantLease(ttlMs: number): Promise<LeaseId> {
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
      throw badRequest(`lease TTL must be a positive number of milliseconds, got ${String(ttlMs)}`);
    }
    const journal = this.#open();
    const id = String(this.#nextLease++);
    // Never waits for the disk: a lease holds nothing until a commit binds a key to it, and that commit's
    // fsync covers this earlier record. A restart that finds no grant only means the lease is gone.
    journal.append({ t: 'grant', l: id, ttl: ttlMs });
    this.#leases.grant(id, ttlMs);
    return id;
  }

  async keepAlive(lease: LeaseId): Promise<Result<{ ttlMs: number }, LeaseError>> {
    this.#open();
    // A refresh is not durable state: it never touches the journal.
    const ttlMs = typeof lease === 'string' ? this.#leases.touch(lease) : null;
    return ttlMs === null ? err('lease_not_found') : ok({ ttlMs });
  }

  async revokeLease(lease: LeaseId): Promise<void> {
    const journal = this.#open();
    if (typeof lease !== 'string' || !this.#leases.isLive(lease)) return;
    const durable = this.#write(journal, { t: 'revoke', l: lease });
    this.#hub.emit(this.#kv.dropLease(lease));
    if (durable !== undefined) await durable;
  }

  async commit(ops: { puts?: PutOp[]; deletes?: string[] }): Promise<Result<void, LeaseError>> {
    const journal = this.#open();
    const puts = ops.puts ?? [];
    const deletes = ops.deletes ?? [];
    const seen = new Set<string>();
    for (const put of puts) {
      checkKey(put?.key, 'put key');
      if (typeof put.value !== 'string') throw badRequest(`value of ${put.key} must be a string`);
      if (seen.has(put.key)) throw badRequest(`key ${put.key} appears twice in one commit`);
      seen.add(put.key);
    }
    for (const key of deletes) {
      checkKey(key, 'delete key');
      if (seen.has(key)) throw badRequest(`key ${key} appears twice in one commit`);
      seen.add(key);
    }
    for (const put of puts) {
      if (put.lease !== undefined && !this.#leases.isLive(put.lease)) return err('lease_not_found');
    }
    const p = puts.map(
      (put): JournalPut => (put.lease === undefined ? [put.key, put.value] : [put.key, put.value, put.lease]),
    );
    const durable = this.#write(
      journal,
      deletes.length > 0 ? { t: 'commit', p, d: deletes } : { t: 'commit', p },
    );
    this.#hub.emit(this.#kv.apply(puts, deletes));
    if (durable !== undefined) await durable;
    return ok(undefined);
  }

  keepAsSource(key: string, value: string, source: object): void {
    this.#open();
    this.#kv.keepAsSource(key, value, source);
  }

  async get(key: string): Promise<string | null> {
    this.#open();
    return this.#kv.get(key);
  }

  async list(prefix: string): Promise<KeyValue[]> {
    this.#open();
    return this.#kv.list(prefix);
  }

  async listKeys(prefix: string): Promise<string[]> {
    this.#open();
    return this.#kv.listKeys(prefix);
  }

  async watch(prefix: string, listener: (events: WatchEvent[]) => void): Promise<Watch> {
    this.#open();
    // Snapshot and registration happen in one synchronous step, so no change falls between them.
    const snapshot = this.#kv.list(prefix);
    const stop = this.#hub.add(prefix, listener);
    return { snapshot, close: async () => stop() };
  }

  async campaign(name: string, candidate: string): Promise<Leadership> {
    this.#open();
    checkKey(name, 'election name');
    return this.#elections.campaign(name, candidate);
  }

  /** Writes and fsyncs every change made so far. */
  async flush(): Promise<void> {
    await this.#open().flush();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#leases.close();
    this.#hub.closeAll();
    this.#elections.closeAll();
    try {
      await this.#journal?.close();
    } finally {
      this.#release?.();
    }
  }

  #open(): Journal {
    if (this.#closed || this.#journal === undefined) {
      throw new ReachError('STORE_UNAVAILABLE', 'the embedded registry store is closed');
    }
    return this.#journal;
  }

  /**
   * Journals a change its caller acknowledges. With `fsyncBeforeAck`, the promise to await before
   * acknowledging: it settles once the record is on disk. The change is applied in memory right after
   * this call, so other readers (and DNS) may see it up to one fsync before its writer's answer; if the
   * write or fsync fails, the store rolls back to what the journal holds on disk before the promise
   * rejects, so no change whose writer was told it failed stays visible.
   */
  #write(journal: Journal, record: JournalRecord): Promise<void> | undefined {
    if (!this.#fsyncBeforeAck) {
      journal.append(record);
      return undefined;
    }
    return journal.appendDurable(record).catch(async (error: unknown) => {
      this.#rolledBack ??= this.#rollBack().catch((cause: unknown) => this.#onError(cause));
      await this.#rolledBack;
      throw error;
    });
  }

  /**
   * Replaces the leases and keys with those the journal held at its last good fsync (as a restart would
   * find them: restored leases get a fresh full TTL), and tells watchers what that changed. Every later
   * change was unacknowledged: its writer waits on the failed fsync. The journal takes no more changes.
   */
  async #rollBack(): Promise<void> {
    const records = await this.#journal!.durableRecords();
    const leases = new LeaseTable(this.#clock, (ids) => this.#expire(ids));
    const kv = new KvState(leases);
    for (const record of records) this.#replay(record, leases, kv);
    const events = changesBetween(this.#kv.entries(), kv.entries());
    this.#leases.close();
    this.#leases = leases;
    this.#kv = kv;
    this.#hub.emit(events);
  }

  #expire(ids: LeaseId[]): void {
    const events: WatchEvent[] = [];
    for (const id of ids) {
      events.push(...this.#kv.dropLease(id));
      try {
        this.#journal?.append({ t: 'revoke', l: id });
      } catch (error) {
        this.#onError(error);
      }
    }
    this.#hub.emit(events);
  }

  /** Applies one journal record to `leases` and `kv` (the store's own, unless rolling back). */
  #replay(record: JournalRecord, leases = this.#leases, kv = this.#kv): void {
    switch (record.t) {
      case 'snap':
        this.#nextLease = Math.max(this.#nextLease, record.next);
        // Restored leases get a fresh full TTL, as etcd does on a leader change.
        for (const [id, ttl] of record.leases) leases.grant(id, ttl);
        return;
      case 'grant':
        leases.grant(record.l, record.ttl);
        this.#nextLease = Math.max(this.#nextLease, Number(record.l) + 1 || 0);
        return;
      case 'revoke':
        kv.dropLease(record.l);
        return;
      case 'commit': {
        // A put whose lease is gone could never have been accepted; skip it rather than orphan it.
        const puts = (record.p ?? [])
          .filter(([, , lease]) => lease === undefined || leases.isLive(lease))
          .map(([key, value, lease]) => (lease === undefined ? { key, value } : { key, value, lease }));
        kv.apply(puts, record.d ?? []);
        return;
      }
    }
  }

  /** About the size of `#snapshot()` written out: the header, ~24 bytes per lease, and the keys. */
  #snapshotBytes(): number {
    return 64 + 24 * this.#leases.size + this.#kv.bytes;
  }

  #snapshot(): JournalSnapshot {
    return { nextLease: this.#nextLease, leases: this.#leases.entries(), kv: this.#kv.entries() };
  }
}

/** The watch events that turn the keys `before` into the keys `after` (both as journal puts). */
function changesBetween(before: SnapshotPut[], after: SnapshotPut[]): WatchEvent[] {
  const remaining = new Map<string, string>();
  for (const [key, value] of before) remaining.set(key, valueText(value));
  const events: WatchEvent[] = [];
  for (const [key, held] of after) {
    const value = valueText(held);
    if (remaining.get(key) !== value) events.push({ type: 'put', key, value });
    remaining.delete(key);
  }
  for (const key of remaining.keys()) events.push({ type: 'delete', key });
  return events;
}

/** Opens the in-process store: leases on the monotonic clock, JSON-lines journal under `path`. */
export function openEmbeddedStore(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
  return EmbeddedStore.open(options);
}
