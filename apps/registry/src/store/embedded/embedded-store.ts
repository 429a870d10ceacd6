import { mkdir } from 'node:fs/promises';
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
import { Journal, readJournal } from './journal.js';
import { journalFileFor, lockJournal } from './journal-lock.js';
import type { JournalPut, JournalRecord, JournalSnapshot } from './journal-records.js';
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
  readonly #leases: LeaseTable;
  readonly #kv: KvState;
  readonly #hub: WatchHub;
  readonly #elections = new ElectionQueue();
  readonly #onError: (error: unknown) => void;
  #journal: Journal | undefined;
  #release: (() => void) | undefined;
  #nextLease = 1 + Math.floor(Math.random() * 2 ** 40);
  #closed = false;

  private constructor(clock: Clock, onError: (error: unknown) => void) {
    this.#onError = onError;
    this.#leases = new LeaseTable(clock, (ids) => this.#expire(ids));
    this.#kv = new KvState(this.#leases);
    this.#hub = new WatchHub(onError);
  }

  /** Opens (or creates) the store whose journal lives at `options.path`, restoring its keys. */
  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    const onError = options.onError ?? ((error: unknown) => console.error('[embedded-store]', error));
    const store = new EmbeddedStore(options.clock ?? systemClock, onError);
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
    journal.append({ t: 'revoke', l: lease });
    this.#hub.emit(this.#kv.dropLease(lease));
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
    journal.append(deletes.length > 0 ? { t: 'commit', p, d: deletes } : { t: 'commit', p });
    this.#hub.emit(this.#kv.apply(puts, deletes));
    return ok(undefined);
  }

  async get(key: string): Promise<string | null> {
    this.#open();
    return this.#kv.get(key);
  }

  async list(prefix: string): Promise<KeyValue[]> {
    this.#open();
    return this.#kv.list(prefix);
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

  #replay(record: JournalRecord): void {
    switch (record.t) {
      case 'snap':
        this.#nextLease = Math.max(this.#nextLease, record.next);
        // Restored leases get a fresh full TTL, as etcd does on a leader change.
        for (const [id, ttl] of record.leases) this.#leases.grant(id, ttl);
        return;
      case 'grant':
        this.#leases.grant(record.l, record.ttl);
        this.#nextLease = Math.max(this.#nextLease, Number(record.l) + 1 || 0);
        return;
      case 'revoke':
        this.#kv.dropLease(record.l);
        return;
      case 'commit': {
        // A put whose lease is gone could never have been accepted; skip it rather than orphan it.
        const puts = (record.p ?? [])
          .filter(([, , lease]) => lease === undefined || this.#leases.isLive(lease))
          .map(([key, value, lease]) => (lease === undefined ? { key, value } : { key, value, lease }));
        this.#kv.apply(puts, record.d ?? []);
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

/** Opens the in-process store: leases on the monotonic clock, JSON-lines journal under `path`. */
export function openEmbeddedStore(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
  return EmbeddedStore.open(options);
}
