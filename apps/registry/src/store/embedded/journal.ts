import { type FileHandle, mkdir, open, readFile, rename, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ReachError } from '@agent-reach/sdk/protocol';
import { type JournalRecord, type JournalSnapshot, parseJournal, snapshotLines } from './journal-records.js';

/** How the journal batches, syncs and compacts. */
export interface JournalOptions {
  /** Captures the whole state synchronously; called when the journal is rewritten. */
  snapshot: () => JournalSnapshot;
  /**
   * Longest time an appended record waits in memory before it is written; 0 writes what one turn of
   * the event loop appended at the end of that turn. @default 0
   */
  flushIntervalMs?: number;
  /** Longest time a written record waits for fsync (the seed's batch sync). @default 1000 */
  syncIntervalMs?: number;
  /**
   * Fsync every write at once (`storage.fsync_before_ack`), so `appendDurable`'s promises settle as soon
   * as they can; `syncIntervalMs` is then unused. Group commit: one write takes every record appended
   * since the previous one — those of one turn of the event loop, or of every turn the previous write
   * and fsync took — and one fsync covers them all. @default false
   */
  syncEachWrite?: boolean;
  /** How written bytes reach the disk: `handle.datasync()`. The seam through which tests count and fail fsyncs. */
  datasync?: (handle: FileHandle) => Promise<void>;
  /**
   * Roughly how many bytes a snapshot taken now would have. The journal is rewritten once it is more
   * than three times that (two thirds superseded records) and grew by `compactMinBytes` since the
   * last rewrite, so a journal that only grows with live state (a registration burst) is never
   * rewritten. @default the size of the last snapshot written
   */
  liveBytes?: () => number;
  /** Least growth between two rewrites. @default 4 MiB */
  compactMinBytes?: number;
  /** Told about a failed background write; later appends fail with STORE_UNAVAILABLE. */
  onError?: (error: unknown) => void;
}

/** What was on disk: the records, and whether the file can be appended to as it is. */
export interface JournalContents {
  records: JournalRecord[];
  /** False when the file is absent or ends in a torn line; it is then rewritten on open. */
  appendable: boolean;
  bytes: number;
}

/** Reads every record of the journal at `file`; an absent file is an empty journal. */
export async function readJournal(file: string): Promise<JournalContents> {
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { records: [], appendable: false, bytes: 0 };
    throw new ReachError('STORE_UNAVAILABLE', `cannot read registry journal ${file}`, { cause: error });
  }
  const { records, torn } = parseJournal(data.toString('utf8'), file);
  return { records, appendable: !torn && records[0]?.t === 'snap', bytes: data.length };
}

/**
 * An append-only JSON-lines journal: records gather in memory and are written in batches, by default
 * one per turn of the event loop (so no record outlives a turn in memory, and none waits long); it is
 * rewritten as a snapshot when it grows, and flushed and synced on close. Writes are fsynced every
 * `syncIntervalMs`, or each at once with `syncEachWrite` (then `appendDurable` tells when a record is on
 * disk). After a failed write or fsync it refuses every later record: what reached the disk is unknown
 * past the last good fsync (`durableRecords`).
 */
export class Journal {
  readonly #file: string;
  readonly #opts: Required<Omit<JournalOptions, 'onError' | 'liveBytes'>> &
    Pick<JournalOptions, 'onError' | 'liveBytes'>;
  #handle: FileHandle | undefined;
  #buffer: string[] = [];
  /** Who waits for the buffered records to reach the disk (made by the first `appendDurable` after a write). */
  #bufferWaiters: Waiters | undefined;
  /** Who waits for records already written to be fsynced, oldest first. */
  #writtenWaiters: Waiters[] = [];
  #chain: Promise<void> = Promise.resolve();
  /** Cancels the pending flush's timer, if one is pending. */
  #cancelFlush: (() => void) | undefined;
  #syncTimer: NodeJS.Timeout | undefined;
  #unsynced = false;
  #bytesSinceSnapshot = 0;
  #snapshotBytes = 0;
  /** How many bytes of the file are known to be on disk: the snapshot, then up to the last fsync's start. */
  #durableBytes = 0;
  #failure: unknown;
  #closed = false;

  private constructor(file: string, options: JournalOptions) {
    this.#file = file;
    this.#opts = {
      flushIntervalMs: 0,
      syncIntervalMs: 1000,
      syncEachWrite: false,
      datasync: (handle) => handle.datasync(),
      compactMinBytes: 4 * 1024 * 1024,
      ...options,
    };
  }

  /**
   * Continues the journal at `file` (what `readJournal` found there, already replayed), or starts it
   * afresh with a snapshot of the current state when it is absent or torn.
   */
  static async create(file: string, options: JournalOptions, found?: JournalContents): Promise<Journal> {
    const journal = new Journal(file, options);
    try {
      await mkdir(dirname(file), { recursive: true });
      if (found?.appendable) {
        journal.#handle = await open(file, 'a');
        journal.#snapshotBytes = found.bytes;
        // What a killed process wrote may still be only in the page cache: acknowledge nothing on top of it.
        if (journal.#opts.syncEachWrite) await journal.#opts.datasync(journal.#handle);
        journal.#durableBytes = found.bytes;
      } else {
        await journal.#rewrite(options.snapshot());
      }
    } catch (error) {
      throw new ReachError('STORE_UNAVAILABLE', `cannot write registry journal ${file}`, { cause: error });
    }
    return journal;
  }

  /** Queues one record; it is written at the end of this turn of the event loop, or within `flushIntervalMs`. */
  append(record: JournalRecord): void {
    if (this.#failure !== undefined) {
      throw new ReachError('STORE_UNAVAILABLE', `registry journal ${this.#file} cannot be written`, {
        cause: this.#failure,
      });
    }
    if (this.#closed) throw new ReachError('STORE_UNAVAILABLE', 'the registry store is closed');
    this.#buffer.push(`${JSON.stringify(record)}\n`);
    if (this.#cancelFlush !== undefined) return;
    const delay = this.#opts.flushIntervalMs;
    if (delay > 0) {
      const timer = setTimeout(() => this.#enqueueFlush(), delay).unref();
      this.#cancelFlush = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => this.#enqueueFlush());
      this.#cancelFlush = () => clearImmediate(immediate);
    }
  }

  /**
   * Queues one record like `append`; the promise resolves once the record is on disk, and rejects with
   * STORE_UNAVAILABLE when it cannot be written or synced. Every record appended before the same write
   * shares one promise (and one fsync).
   */
  appendDurable(record: JournalRecord): Promise<void> {
    this.append(record);
    this.#bufferWaiters ??= new Waiters();
    return this.#bufferWaiters.promise;
  }

  /**
   * After a failure: the records the last successful fsync (or snapshot) made durable. The file is cut
   * back to them first, so a restart does not find records whose writers were told they failed.
   */
  async durableRecords(): Promise<JournalRecord[]> {
    const data = await readFile(this.#file);
    try {
      await truncate(this.#file, this.#durableBytes);
    } catch (error) {
      this.#opts.onError?.(error);
    }
    return parseJournal(data.subarray(0, this.#durableBytes).toString('utf8'), this.#file).records;
  }

  /** Writes and syncs everything appended so far. */
  async flush(): Promise<void> {
    this.#enqueueFlush();
    this.#chain = this.#chain.then(() => this.#sync());
    await this.#chain;
    if (this.#failure !== undefined) {
      throw new ReachError('STORE_UNAVAILABLE', `registry journal ${this.#file} cannot be written`, {
        cause: this.#failure,
      });
    }
  }

  /** Flushes, syncs and closes the file; later appends fail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.flush();
    } finally {
      this.#closed = true;
      if (this.#syncTimer !== undefined) clearTimeout(this.#syncTimer);
      await this.#handle?.close().catch(() => undefined);
      this.#handle = undefined;
    }
  }

  #enqueueFlush(): void {
    this.#cancelFlush?.();
    this.#cancelFlush = undefined;
    this.#chain = this.#chain.then(() => this.#guard(() => this.#writeBuffered()));
  }

  async #guard(step: () => Promise<void>): Promise<void> {
    if (this.#failure !== undefined || this.#handle === undefined) return;
    try {
      await step();
    } catch (error) {
      this.#fail(error);
    }
  }

  /** The journal cannot be trusted any more: every waiter and every later append fails. */
  #fail(error: unknown): void {
    this.#failure = error;
    const refused = new ReachError(
      'STORE_UNAVAILABLE',
      `registry journal ${this.#file} could not be written and synced; the change is not stored`,
      { cause: error },
    );
    for (const waiters of this.#writtenWaiters) waiters.reject(refused);
    this.#writtenWaiters = [];
    this.#bufferWaiters?.reject(refused);
    this.#bufferWaiters = undefined;
    this.#opts.onError?.(error);
  }

  /** The buffered records are about to be written (or snapshotted): their waiters now wait for the fsync. */
  #takeBufferWaiters(): void {
    if (this.#bufferWaiters === undefined) return;
    this.#writtenWaiters.push(this.#bufferWaiters);
    this.#bufferWaiters = undefined;
  }

  async #writeBuffered(): Promise<void> {
    if (this.#buffer.length === 0) return;
    const text = this.#buffer.join('');
    this.#buffer = [];
    this.#takeBufferWaiters();
    await this.#handle!.write(text);
    this.#bytesSinceSnapshot += Buffer.byteLength(text);
    this.#unsynced = true;
    if (this.#opts.syncEachWrite) {
      // Records appended meanwhile wait in the buffer for the next write and its fsync: group commit.
      await this.#syncWritten();
    } else {
      this.#syncTimer ??= setTimeout(() => {
        this.#chain = this.#chain.then(() => this.#sync());
      }, this.#opts.syncIntervalMs).unref();
    }
    if (this.#shouldCompact()) {
      // The snapshot includes every buffered record, so they are dropped with it (and made durable by it).
      const snapshot = this.#opts.snapshot();
      this.#buffer = [];
      this.#takeBufferWaiters();
      await this.#rewrite(snapshot);
    }
  }

  /** Rewrite only when most of the file is superseded records: rewriting live state buys nothing. */
  #shouldCompact(): boolean {
    if (this.#bytesSinceSnapshot <= this.#opts.compactMinBytes) return false;
    const live = this.#opts.liveBytes?.() ?? this.#snapshotBytes;
    return this.#snapshotBytes + this.#bytesSinceSnapshot > 3 * live;
  }

  async #sync(): Promise<void> {
    await this.#guard(() => this.#syncWritten());
  }

  /** Fsyncs what was written, then lets its waiters go on; throws when the fsync fails (callers guard). */
  async #syncWritten(): Promise<void> {
    if (this.#syncTimer !== undefined) clearTimeout(this.#syncTimer);
    this.#syncTimer = undefined;
    if (!this.#unsynced) return;
    this.#unsynced = false;
    const bytes = this.#snapshotBytes + this.#bytesSinceSnapshot;
    const covered = this.#writtenWaiters.length;
    await this.#opts.datasync(this.#handle!);
    this.#durableBytes = bytes;
    for (const waiters of this.#writtenWaiters.splice(0, covered)) waiters.resolve();
  }

  /** Writes `snapshot` to a temporary file, syncs it, and renames it over the journal. */
  async #rewrite(snapshot: JournalSnapshot): Promise<void> {
    const tmp = `${this.#file}.tmp`;
    const out = await open(tmp, 'w');
    let bytes = 0;
    try {
      let pending: string[] = [];
      for (const line of snapshotLines(snapshot)) {
        pending.push(line);
        bytes += Buffer.byteLength(line);
        if (pending.length >= 64) {
          await out.write(pending.join(''));
          pending = [];
        }
      }
      if (pending.length > 0) await out.write(pending.join(''));
      await this.#opts.datasync(out);
    } finally {
      await out.close();
    }
    await rename(tmp, this.#file);
    // From here the file is the snapshot, every byte of it synced.
    this.#durableBytes = bytes;
    await syncDirectory(dirname(this.#file));
    await this.#handle?.close();
    this.#handle = await open(this.#file, 'a');
    this.#snapshotBytes = bytes;
    this.#bytesSinceSnapshot = 0;
    this.#unsynced = false;
    for (const waiters of this.#writtenWaiters.splice(0)) waiters.resolve();
  }
}

/** One promise for every record of one write: resolved once they are on disk, rejected if they cannot be. */
class Waiters {
  readonly promise: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;

  constructor() {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // Its writers await it; this only keeps a rejection nobody awaits yet from counting as unhandled.
    this.promise.catch(() => undefined);
  }
}

/** Makes a rename durable: the directory entry itself must reach the disk. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
