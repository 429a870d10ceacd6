import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import { Etcd3 } from 'etcd3';
import {
  type KeyValue,
  type Leadership,
  type LeaseError,
  type LeaseId,
  MAX_OPS_PER_COMMIT,
  type PutOp,
  type RegistryStore,
  type Watch,
  type WatchEvent,
} from '../store.js';
import { closedError, isLeaseNotFound, toStoreError } from './etcd-errors.js';
import { isEtcdLeaseId } from './etcd-keys.js';
import { EtcdLeadership } from './etcd-leadership.js';
import { rangeAll } from './etcd-range.js';
import { type EtcdSecurity, EtcdUnaryClient, type TxnOp } from './etcd-unary.js';
import { openEtcdWatch } from './etcd-watch.js';
import { KeepAliveStream } from './keepalive-stream.js';
import { LeaseDeadlines } from './lease-deadlines.js';
import { LeasePool } from './lease-pool.js';
import { TxnBatcher } from './txn-batcher.js';

/** Options of the etcd-backed store. */
export interface EtcdStoreOptions {
  /** etcd client URLs, e.g. `http://127.0.0.1:2379`. */
  endpoints: string[];
  /** Prepended to every key (tests isolate with it); production uses none, so `/skydns/` is where CoreDNS reads. @default '' */
  prefix?: string;
  /** Deadline of each unary etcd call. @default 5000 */
  callTimeoutMs?: number;
  /** TTL of an election candidate's session: how soon a dead leader is replaced. @default 2 */
  electionTtlSeconds?: number;
  /** Told about background failures (watch errors, lost election sessions). */
  onError?: (error: unknown) => void;
  /** Client TLS (endpoints then use `https://`) and an etcd user; both clients use them. */
  security?: EtcdSecurity;
}

/** Keep-alive streams for leases that surely live (lease ids are sequential, so their last digits spread them). */
export const KEEPALIVE_STREAMS = 4;

/**
 * How long the stream of possibly expired leases may go without an answer before it counts as stalled.
 * Its answers legitimately wait for etcd to revoke expired leases, at most 1,000 a second: after a mass
 * expiry of N leases the first answer can take N / 1,000 s, longer on a loaded machine (4,000 took over
 * 5 s in CI). With the call deadline (5 s) such refreshes failed STORE_UNAVAILABLE instead of
 * answering "lease gone"; a broken or reset connection still fails them at once (the stream closes).
 */
export const LATE_KEEPALIVE_STALL_MS = 60_000;

/** The registry store on a real etcd cluster: leases, one transaction per commit, watches, elections. */
export class EtcdStore implements RegistryStore {
  readonly kind = 'etcd' as const;
  // CoreDNS's etcd plugin reads the SkyDNS projection from here.
  readonly externalReaders = true;
  readonly #client: Etcd3;
  /** LeaseGrant and Txn, the calls of every registration, on a lighter path than #client's. */
  readonly #unary: EtcdUnaryClient;
  readonly #prefix: Buffer;
  readonly #electionTtl: number;
  readonly #onError: (error: unknown) => void;
  /**
   * Refreshes of leases that surely have not expired (most heartbeats), spread over a few streams by
   * lease id: etcd serves each stream's refreshes one at a time, and every refresh first waits until
   * etcd has applied all it committed (`waitAppliedIndex`, 3.4 and 3.5), so under writes (registrations,
   * weights, liveness facts) one stream moves one refresh per apply; several wait side by side.
   */
  readonly #keepAlives: KeepAliveStream[];
  /** Refreshes of leases that may have expired, or that this process never saw: see LeaseDeadlines. */
  readonly #lateKeepAlives: KeepAliveStream;
  readonly #deadlines = new LeaseDeadlines();
  readonly #sweepDeadlines: NodeJS.Timeout;
  readonly #watches = new Set<Watch>();
  /** Per prefix listed, where its last listing says to cut the next one into pages (etcd-range.ts). */
  readonly #listCuts = new Map<string, Buffer[]>();
  readonly #leaderships = new Set<Leadership>();
  readonly #txns: TxnBatcher;
  readonly #leases: LeasePool;
  #closed = false;

  private constructor(options: EtcdStoreOptions) {
    const timeout = options.callTimeoutMs ?? 5_000;
    const { tls, auth } = options.security ?? {};
    this.#client = new Etcd3({
      hosts: options.endpoints,
      dialTimeout: timeout,
      ...(tls === undefined
        ? {}
        : {
            credentials: {
              rootCertificate: tls.ca,
              ...(tls.cert === undefined ? {} : { certChain: tls.cert }),
              ...(tls.key === undefined ? {} : { privateKey: tls.key }),
            },
          }),
      ...(auth === undefined ? {} : { auth: { username: auth.username, password: auth.password } }),
      // Streams (watch, keep-alive) live long; only single calls get a deadline.
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeout }),
    });
    this.#unary = new EtcdUnaryClient(options.endpoints, timeout, options.security);
    this.#prefix = Buffer.from(options.prefix ?? '', 'utf8');
    this.#electionTtl = options.electionTtlSeconds ?? 2;
    this.#onError = options.onError ?? ((error: unknown) => console.error('[etcd-store]', error));
    this.#keepAlives = Array.from(
      { length: KEEPALIVE_STREAMS },
      () => new KeepAliveStream(this.#unary, { timeoutMs: timeout }),
    );
    this.#lateKeepAlives = new KeepAliveStream(this.#unary, {
      timeoutMs: Math.max(timeout, LATE_KEEPALIVE_STALL_MS),
    });
    this.#sweepDeadlines = setInterval(() => this.#deadlines.sweep(), 10_000);
    this.#sweepDeadlines.unref();
    this.#txns = new TxnBatcher({
      send: (ops) => this.#unary.txn(ops),
      isLeaseNotFound,
      maxOps: MAX_OPS_PER_COMMIT,
      // Each call costs this process ~0.1 ms of CPU and etcd more: past two in flight only half-full
      // batches go, so registrations under load share larger ones, yet a slow etcd still gets four to
      // work on (8/4 measured the same at 10,000 instances, 16/16 15–35 % fewer registrations/s).
      maxInFlight: 4,
      eagerInFlight: 2,
    });
    // Registrations take leases granted moments before, so they wait for one raft round, not two.
    this.#leases = new LeasePool({
      grant: (ttlSeconds) => this.#grant(ttlSeconds),
      refresh: (lease) => this.#refresh(lease),
      onError: this.#onError,
    });
  }

  /** Connects to etcd and checks that it answers; STORE_UNAVAILABLE when it does not. */
  static async open(options: EtcdStoreOptions): Promise<EtcdStore> {
    if (!Array.isArray(options.endpoints) || options.endpoints.length === 0) {
      throw new ReachError('INVALID_CONFIG', 'storage.etcd.endpoints must list at least one etcd URL');
    }
    const store = new EtcdStore(options);
    try {
      await store.#client.kv.range({ key: store.#key('/'), limit: 1 });
    } catch (error) {
      store.#client.close();
      store.#unary.close();
      throw toStoreError(error, `connect to ${options.endpoints.join(', ')}`);
    }
    return store;
  }

  async grantLease(ttlMs: number): Promise<LeaseId> {
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
      throw new ReachError(
        'BAD_REQUEST',
        `lease TTL must be a positive number of milliseconds, got ${String(ttlMs)}`,
      );
    }
    // etcd's TTL granularity is whole seconds: round up so a lease never lives shorter than asked.
    return this.#call('grant lease', () => this.#leases.take(Math.ceil(ttlMs / 1000)));
  }

  async keepAlive(lease: LeaseId): Promise<Result<{ ttlMs: number }, LeaseError>> {
    this.#assertOpen();
    if (!isEtcdLeaseId(lease)) return err('lease_not_found');
    const ttlSeconds = await this.#call('keep-alive', () => this.#refresh(lease));
    return ttlSeconds > 0 ? ok({ ttlMs: ttlSeconds * 1000 }) : err('lease_not_found');
  }

  async revokeLease(lease: LeaseId): Promise<void> {
    this.#assertOpen();
    if (!isEtcdLeaseId(lease)) return;
    this.#deadlines.forget(lease);
    try {
      await this.#client.leaseClient.leaseRevoke({ ID: lease });
    } catch (error) {
      if (!isLeaseNotFound(error)) throw toStoreError(error, 'revoke lease');
    }
  }

  async commit(ops: { puts?: PutOp[]; deletes?: string[] }): Promise<Result<void, LeaseError>> {
    this.#assertOpen();
    const puts = ops.puts ?? [];
    const deletes = ops.deletes ?? [];
    const seen = new Set<string>();
    const requests: TxnOp[] = [];
    for (const put of puts) {
      this.#checkKey(put?.key, seen);
      if (typeof put.value !== 'string')
        throw new ReachError('BAD_REQUEST', `value of ${put.key} must be a string`);
      if (put.lease !== undefined && !isEtcdLeaseId(put.lease)) return err('lease_not_found');
      const key = this.#key(put.key);
      const value = Buffer.from(put.value, 'utf8');
      requests.push({
        request_put: put.lease === undefined ? { key, value } : { key, value, lease: put.lease },
      });
    }
    for (const key of deletes) {
      this.#checkKey(key, seen);
      requests.push({ request_delete_range: { key: this.#key(key) } });
    }
    if (requests.length > MAX_OPS_PER_COMMIT) {
      throw new ReachError(
        'BAD_REQUEST',
        `a commit may hold at most ${MAX_OPS_PER_COMMIT} operations, got ${requests.length}`,
      );
    }
    if (requests.length === 0) return ok(undefined);
    try {
      // Commits waiting at the same time share one transaction (one raft write).
      await this.#txns.commit({ ops: requests, keys: [...seen] });
    } catch (error) {
      // etcd refuses the whole transaction when one put names a missing lease: nothing was written.
      if (isLeaseNotFound(error)) return err('lease_not_found');
      throw toStoreError(error, 'commit');
    }
    return ok(undefined);
  }

  async get(key: string): Promise<string | null> {
    const res = await this.#call('get', () => this.#client.kv.range({ key: this.#key(key) }));
    return res.kvs[0]?.value.toString('utf8') ?? null;
  }

  async list(prefix: string): Promise<KeyValue[]> {
    const { kvs, cuts } = await this.#call('list', () =>
      rangeAll(this.#client.kv, this.#key(prefix), this.#prefix.length, this.#listCuts.get(prefix)),
    );
    // A prefix listed again and again (the leader's identity pass, every minute) reads in bounded pages.
    if (cuts.length > 0) this.#listCuts.set(prefix, cuts);
    else this.#listCuts.delete(prefix);
    return kvs;
  }

  async listKeys(prefix: string): Promise<string[]> {
    // Pages of keys alone are smaller: their own cuts, not the full listing's.
    const cutsKey = `keys:${prefix}`;
    const { kvs, cuts } = await this.#call('list keys', () =>
      rangeAll(this.#client.kv, this.#key(prefix), this.#prefix.length, this.#listCuts.get(cutsKey), true),
    );
    if (cuts.length > 0) this.#listCuts.set(cutsKey, cuts);
    else this.#listCuts.delete(cutsKey);
    return kvs.map((kv) => kv.key);
  }

  async watch(prefix: string, listener: (events: WatchEvent[]) => void): Promise<Watch> {
    // Only the inner close is kept: the store must not hold the snapshot once the caller let it go.
    const { snapshot, close } = await this.#call('watch', () =>
      openEtcdWatch(this.#client, this.#key(prefix), this.#prefix.length, listener, this.#onError),
    );
    const watch: Watch = {
      snapshot,
      close: async () => {
        this.#watches.delete(watch);
        await close();
      },
    };
    this.#watches.add(watch);
    return watch;
  }

  async campaign(name: string, candidate: string): Promise<Leadership> {
    this.#assertOpen();
    if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,100}$/.test(name)) {
      throw new ReachError(
        'BAD_REQUEST',
        `election name must be 1-100 of [A-Za-z0-9_.-], got ${JSON.stringify(name)}`,
      );
    }
    // Election keys live at <prefix>/reach/election/<name>/<lease>, away from the registry's records.
    const election = this.#client
      .namespace(`${this.#prefix.toString('utf8')}/reach/`)
      .election(name, this.#electionTtl);
    const leadership: EtcdLeadership = new EtcdLeadership(
      election,
      candidate,
      this.#electionTtl,
      this.#onError,
      () => this.#leaderships.delete(leadership),
    );
    this.#leaderships.add(leadership);
    try {
      await leadership.start();
    } catch (error) {
      this.#leaderships.delete(leadership);
      throw error;
    }
    return leadership;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#watches].map((watch) => watch.close()));
    // Resigning revokes each session lease, so another process takes over at once.
    await Promise.allSettled([...this.#leaderships].map((leadership) => leadership.resign()));
    this.#leases.close();
    clearInterval(this.#sweepDeadlines);
    for (const stream of this.#keepAlives) stream.close();
    this.#lateKeepAlives.close();
    this.#unary.close();
    this.#client.close();
  }

  async #grant(ttlSeconds: number): Promise<string> {
    const startedAt = this.#deadlines.now();
    const lease = await this.#unary.grantLease(ttlSeconds);
    this.#deadlines.renewed(lease, startedAt, ttlSeconds);
    return lease;
  }

  /** One keep-alive of `lease`, on the stream its deadline calls for; resolves with its TTL (0: gone). */
  async #refresh(lease: string): Promise<number> {
    const startedAt = this.#deadlines.now();
    const stream = this.#deadlines.alive(lease)
      ? this.#keepAlives[Number(lease.slice(-4)) % KEEPALIVE_STREAMS]!
      : this.#lateKeepAlives;
    const ttlSeconds = await stream.refresh(lease);
    this.#deadlines.renewed(lease, startedAt, ttlSeconds);
    return ttlSeconds;
  }

  /** Leases whose deadline this process knows (tests). */
  get trackedLeases(): number {
    return this.#deadlines.size;
  }

  #key(key: string): Buffer {
    return this.#prefix.length === 0
      ? Buffer.from(key, 'utf8')
      : Buffer.concat([this.#prefix, Buffer.from(key, 'utf8')]);
  }

  #checkKey(key: unknown, seen: Set<string>): asserts key is string {
    if (typeof key !== 'string' || key.length === 0)
      throw new ReachError('BAD_REQUEST', 'keys must be non-empty strings');
    if (seen.has(key)) throw new ReachError('BAD_REQUEST', `key ${key} appears twice in one commit`);
    seen.add(key);
  }

  #assertOpen(): void {
    if (this.#closed) throw closedError();
  }

  async #call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    try {
      return await fn();
    } catch (error) {
      throw toStoreError(error, what);
    }
  }
}

/** Connects the registry store to etcd at `endpoints`, every key under `prefix`. */
export function openEtcdStore(options: EtcdStoreOptions): Promise<EtcdStore> {
  return EtcdStore.open(options);
}
