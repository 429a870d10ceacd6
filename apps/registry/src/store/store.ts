import type { Result } from '@agent-reach/sdk/protocol';

/** A lease id: etcd's int64 lease id as a decimal string, or the embedded store's own. */
export type LeaseId = string;

/** One key and its value; `lease` is set when the key is bound to a lease. */
export interface KeyValue {
  key: string;
  value: string;
  lease?: LeaseId;
}

/** A change seen by a watch. Deletes include those caused by a lease expiring or being revoked. */
export type WatchEvent = { type: 'put'; key: string; value: string } | { type: 'delete'; key: string };

/** A put inside a transaction, optionally bound to a lease. */
export interface PutOp {
  key: string;
  value: string;
  lease?: LeaseId;
  /**
   * The object `value` is the JSON text of, when its writer keeps that object anyway and never changes
   * it in a way that changes its JSON. The embedded store keeps the value as this object, not the text, and makes the text again when the value is read (`JSON.stringify(source)`: the same JSON,
   * though an object whose parts were swapped for equal ones may order a map's keys differently). The
   * etcd store ignores it.
   */
  source?: object;
}

/** The reason a lease operation or a transaction that uses a lease was refused. */
export type LeaseError = 'lease_not_found';

/** A running watch: the snapshot it started from and a way to stop it. */
export interface Watch {
  /** Every key under the prefix at the moment the watch began; events follow with no gap. */
  snapshot: KeyValue[];
  close(): Promise<void>;
}

/** The outcome of a campaign: this process may or may not lead right now. */
export interface Leadership {
  readonly isLeader: boolean;
  /** Calls `listener` whenever leadership is gained or lost; returns an unsubscribe function. */
  onChange(listener: (isLeader: boolean) => void): () => void;
  /** Gives up leadership (or the candidacy) for good. */
  resign(): Promise<void>;
}

/**
 * The registry's storage: a key-value store with leases, atomic multi-key commits, prefix watches
 * and leader election. etcd semantics; the embedded store reproduces them in-process.
 */
export interface RegistryStore {
  readonly kind: 'embedded' | 'etcd';
  /**
   * Whether processes other than the registry read this store (CoreDNS's etcd plugin reads etcd);
   * the SkyDNS projection is written by default only where someone can read it.
   */
  readonly externalReaders: boolean;
  /**
   * Creates a lease that expires `ttlMs` after its last keep-alive (rounded up to whole seconds on
   * etcd, where under load it may come from leases granted up to 50 ms before: see lease-pool.ts).
   */
  grantLease(ttlMs: number): Promise<LeaseId>;
  /** Refreshes a lease once; `lease_not_found` once it expired or was revoked. */
  keepAlive(lease: LeaseId): Promise<Result<{ ttlMs: number }, LeaseError>>;
  /** Revokes a lease and deletes every key bound to it, at once. Unknown leases are ignored. */
  revokeLease(lease: LeaseId): Promise<void>;
  /** Applies every put and delete together or none; fails whole if a named lease does not exist. */
  commit(ops: { puts?: PutOp[]; deletes?: string[] }): Promise<Result<void, LeaseError>>;
  get(key: string): Promise<string | null>;
  /**
   * When `key` holds exactly `value`, keeps `source` in its place as a put's `source` would have (its
   * JSON text must be `value`): for values read back from before a restart.
   * Only the embedded store has it; elsewhere values are not held in this process.
   */
  keepAsSource?(key: string, value: string, source: object): void;
  /** Every key under `prefix`, sorted by key. */
  list(prefix: string): Promise<KeyValue[]>;
  /** Every key under `prefix`, sorted, without values: a pass that needs only names reads no values. */
  listKeys(prefix: string): Promise<string[]>;
  /** Takes a snapshot of `prefix` and then reports every later change, in order, in batches. */
  watch(prefix: string, listener: (events: WatchEvent[]) => void): Promise<Watch>;
  /** Joins the election `name`; at most one candidate across all processes leads at a time. */
  campaign(name: string, candidate: string): Promise<Leadership>;
  close(): Promise<void>;
}

/**
 * Most operations one commit carries: etcd's default `--max-txn-ops`. The etcd store refuses larger
 * commits; callers with more split them (`deleteInCommits`, or chunks of their own for puts).
 */
export const MAX_OPS_PER_COMMIT = 128;

/** Deletes `keys` in as many commits of at most `MAX_OPS_PER_COMMIT` as they need. */
export async function deleteInCommits(
  store: Pick<RegistryStore, 'commit'>,
  keys: readonly string[],
): Promise<void> {
  for (let start = 0; start < keys.length; start += MAX_OPS_PER_COMMIT) {
    await store.commit({ deletes: keys.slice(start, start + MAX_OPS_PER_COMMIT) });
  }
}
