import type { Logger } from 'pino';
import { followPrefix } from '../store/follow-prefix.js';
import { KEYS } from '../store/keys.js';
import { InstanceRecord } from '../store/records.js';
import type { KeyValue, RegistryStore, Watch, WatchEvent } from '../store/store.js';
import type { InstanceChanges, InstanceSource } from './instance-source.js';
import { SharedParts } from './shared-parts.js';

/** Records this process is about to write, so their watch events need no second parse. */
export interface LocalWrites {
  /** Announces that `value` (the JSON of `record`) is about to be written under the record's key. */
  expectWrite(record: InstanceRecord, value: string): void;
  /** Withdraws an announcement whose write did not happen. */
  forgetWrite(instanceId: string): void;
}

/** The live registrations, kept current from `store.watch('/reach/instances/')`. */
export class InstanceCache implements InstanceSource, LocalWrites {
  private readonly records = new Map<string, InstanceRecord>();
  /** Parts equal across records (declarations, ALPN lists), held once. */
  private readonly shared = new SharedParts();
  private readonly expected = new Map<string, { value: string; record: InstanceRecord }>();
  private readonly listeners = new Set<(changes: InstanceChanges) => void>();
  private snapshot: InstanceRecord[] | null = null;
  private watch: Watch | null = null;
  private closed = false;

  private constructor(
    private readonly logger: Logger,
    /** The store's `keepAsSource`, if it has one: records loaded at start are then held once, as objects. */
    private readonly keepAsSource: RegistryStore['keepAsSource'],
  ) {}

  /** Starts the watch and returns once the snapshot is loaded (the cache is primed). */
  static async start(store: RegistryStore, logger: Logger): Promise<InstanceCache> {
    const cache = new InstanceCache(logger, store.keepAsSource?.bind(store));
    cache.watch = await followPrefix(store, KEYS.instancesPrefix, {
      load: (snapshot) => cache.load(snapshot),
      apply: (events) => cache.apply(events),
    });
    return cache;
  }

  /** True once the snapshot is loaded and until `close()`. */
  get primed(): boolean {
    return this.watch !== null && !this.closed;
  }

  get size(): number {
    return this.records.size;
  }

  all(): InstanceRecord[] {
    this.snapshot ??= [...this.records.values()];
    return this.snapshot;
  }

  get(instanceId: string): InstanceRecord | undefined {
    return this.records.get(instanceId);
  }

  expectWrite(record: InstanceRecord, value: string): void {
    this.expected.set(record.instance_id, { value, record });
  }

  forgetWrite(instanceId: string): void {
    this.expected.delete(instanceId);
  }

  subscribe(listener: (changes: InstanceChanges) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.watch?.close();
  }

  private parse(key: string, value: string): InstanceRecord | undefined {
    try {
      const parsed = InstanceRecord.safeParse(JSON.parse(value));
      if (parsed.success) return parsed.data;
      this.logger.warn(
        { key, issues: parsed.error.issues.slice(0, 3) },
        'ignoring an invalid instance record',
      );
    } catch (cause) {
      this.logger.warn({ key, err: cause }, 'ignoring an instance record that is not JSON');
    }
    return undefined;
  }

  private load(snapshot: KeyValue[]): void {
    const put: InstanceRecord[] = [];
    for (const { key, value } of snapshot) {
      const record = this.parse(key, value);
      if (!record) continue;
      this.store(record, this.records.get(record.instance_id));
      // The store may keep this object rather than the text it was read from, if they are the same JSON
      // (not when, say, a newer version wrote fields this one drops).
      if (this.keepAsSource !== undefined && JSON.stringify(record) === value)
        this.keepAsSource(key, value, record);
      put.push(record);
    }
    this.snapshot = null;
    if (put.length > 0) this.emit({ put, deleted: [], replaced: [] });
  }

  private apply(events: WatchEvent[]): void {
    if (this.closed) return;
    // The record each touched id had before this batch (undefined: none), in order of first touch.
    const before = new Map<string, InstanceRecord | undefined>();
    for (const event of events) {
      const instanceId = event.key.slice(KEYS.instancesPrefix.length);
      const previous = this.records.get(instanceId);
      if (event.type === 'delete') {
        if (previous === undefined) continue;
        if (!before.has(instanceId)) before.set(instanceId, previous);
        this.shared.release(previous);
        this.records.delete(instanceId);
        continue;
      }
      const local = this.expected.get(instanceId);
      if (local) this.expected.delete(instanceId);
      // Our own write: the record was validated before it was stored, so the event needs no parsing.
      const record = local?.value === event.value ? local.record : this.parse(event.key, event.value);
      if (!record) continue;
      if (!before.has(instanceId)) before.set(instanceId, previous);
      this.store(record, previous);
    }
    // One change per id, its state after the batch (an etcd watch batch can hold several of one id).
    const changes: InstanceChanges = { put: [], deleted: [], replaced: [] };
    for (const [instanceId, previous] of before) {
      const current = this.records.get(instanceId);
      if (current !== undefined) changes.put.push(current);
      else if (previous !== undefined) changes.deleted.push(instanceId);
      else continue; // put and deleted within the batch: never seen by anyone
      if (previous !== undefined) changes.replaced.push(previous);
    }
    if (changes.put.length === 0 && changes.deleted.length === 0) return;
    this.snapshot = null;
    this.emit(changes);
  }

  /** Keeps `record` (sharing its common parts) in place of `previous`, its instance's earlier record. */
  private store(record: InstanceRecord, previous: InstanceRecord | undefined): void {
    if (previous === record) return;
    if (previous !== undefined) this.shared.release(previous);
    this.shared.adopt(record);
    this.records.set(record.instance_id, record);
  }

  private emit(changes: InstanceChanges): void {
    for (const listener of this.listeners) {
      try {
        listener(changes);
      } catch (cause) {
        this.logger.error({ err: cause }, 'an instance cache listener failed');
      }
    }
  }
}
