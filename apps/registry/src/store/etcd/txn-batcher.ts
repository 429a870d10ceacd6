import type { TxnOp } from './etcd-unary.js';

/** One commit's operations and the keys they touch. */
export interface QueuedTxn {
  ops: TxnOp[];
  keys: string[];
}

interface Pending extends QueuedTxn {
  resolve(): void;
  reject(error: unknown): void;
}

/** How a TxnBatcher sends transactions. */
export interface TxnBatcherOptions {
  /** Sends one etcd transaction made of these operations. */
  send(ops: TxnOp[]): Promise<void>;
  /** True for the error etcd gives when one put names a missing lease. */
  isLeaseNotFound(error: unknown): boolean;
  /** etcd's limit on operations in one transaction. */
  maxOps: number;
  /** Transactions in flight at once; commits that arrive meanwhile wait and go out together. */
  maxInFlight: number;
  /**
   * Below this many in flight any batch goes at once; from here up to `maxInFlight` only a batch of at
   * least `maxOps / 2` operations does, so under load commits gather into fewer, larger transactions.
   * @default maxInFlight
   */
  eagerInFlight?: number;
}

/**
 * Merges commits that wait for etcd into one transaction (raft write) when their keys are disjoint:
 * each commit still applies whole or not at all, and one that touches a key of a transaction in
 * flight waits for it, so commits to one key apply in the order they were made. When a merged
 * transaction names a missing lease, its commits are retried one by one, so only that one fails.
 */
export class TxnBatcher {
  readonly #options: TxnBatcherOptions;
  #queue: Pending[] = [];
  #inFlight = 0;
  /** Keys of the transactions in flight (a batch never holds a key twice, nor one already in flight). */
  readonly #busy = new Set<string>();

  constructor(options: TxnBatcherOptions) {
    this.#options = options;
  }

  /** Applies `txn` in some transaction; rejects with etcd's error (lease-not-found only for its own lease). */
  commit(txn: QueuedTxn): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ ops: txn.ops, keys: txn.keys, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    const { maxInFlight, maxOps, eagerInFlight = maxInFlight } = this.#options;
    while (this.#inFlight < maxInFlight && this.#queue.length > 0) {
      const { n, ops } = this.#next();
      if (n === 0) return;
      // A small batch waits for a slot below `eagerInFlight` (a finishing transaction pumps again).
      if (this.#inFlight >= eagerInFlight && ops < maxOps / 2) return;
      const batch = this.#queue.slice(0, n);
      this.#queue = this.#queue.slice(n);
      void this.#send(batch);
    }
  }

  /** The next batch: the longest run of queued commits, in order, that fits and touches no key twice or in flight. */
  #next(): { n: number; ops: number } {
    const keys = new Set<string>();
    let ops = 0;
    let n = 0;
    for (; n < this.#queue.length; n++) {
      const txn = this.#queue[n]!;
      if (txn.keys.some((key) => this.#busy.has(key))) break;
      const fits = ops + txn.ops.length <= this.#options.maxOps && !txn.keys.some((key) => keys.has(key));
      if (n > 0 && !fits) break;
      ops += txn.ops.length;
      for (const key of txn.keys) keys.add(key);
    }
    return { n, ops };
  }

  async #send(batch: Pending[]): Promise<void> {
    this.#inFlight++;
    for (const txn of batch) for (const key of txn.keys) this.#busy.add(key);
    try {
      await this.#options.send(batch.length === 1 ? batch[0]!.ops : batch.flatMap((txn) => txn.ops));
      for (const txn of batch) txn.resolve();
    } catch (error) {
      if (batch.length > 1 && this.#options.isLeaseNotFound(error)) {
        await Promise.all(batch.map((txn) => this.#options.send(txn.ops).then(txn.resolve, txn.reject)));
      } else for (const txn of batch) txn.reject(error);
    } finally {
      this.#inFlight--;
      for (const txn of batch) for (const key of txn.keys) this.#busy.delete(key);
      this.#pump();
    }
  }
}
