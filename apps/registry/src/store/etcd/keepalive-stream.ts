import { ReachError } from '@agent-reach/sdk/protocol';
import type { IDuplexStream, ILeaseKeepAliveRequest, ILeaseKeepAliveResponse, LeaseClient } from 'etcd3';

interface Waiter {
  settled: boolean;
  resolve(ttlSeconds: number): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

type Stream = IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>;

/**
 * Keeps many leases alive over ONE long-lived LeaseKeepAlive stream: each refresh is a message,
 * not a new stream. etcd answers each lease's requests in order, so answers queue per lease id.
 */
export class KeepAliveStream {
  readonly #client: LeaseClient;
  readonly #timeoutMs: number;
  readonly #waiting = new Map<string, Waiter[]>();
  #stream: Promise<Stream> | undefined;

  constructor(client: LeaseClient, timeoutMs: number) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
  }

  /** Refreshes lease `id` once; resolves with its TTL in seconds, 0 when etcd no longer has it. */
  async refresh(id: string): Promise<number> {
    const stream = await this.#open();
    return new Promise<number>((resolve, reject) => {
      const waiter: Waiter = {
        settled: false,
        resolve,
        reject,
        timer: setTimeout(() => {
          // Stays queued (settled) so later answers still line up with their requests.
          waiter.settled = true;
          reject(
            new ReachError(
              'STORE_UNAVAILABLE',
              `etcd did not answer a keep-alive within ${this.#timeoutMs} ms`,
            ),
          );
        }, this.#timeoutMs),
      };
      const queue = this.#waiting.get(id);
      if (queue === undefined) this.#waiting.set(id, [waiter]);
      else queue.push(waiter);
      stream.write({ ID: id });
    });
  }

  /** Ends the stream; pending refreshes fail. */
  close(): void {
    const stream = this.#stream;
    this.#stream = undefined;
    this.#failAll(new ReachError('STORE_UNAVAILABLE', 'the etcd registry store is closed'));
    stream?.then((s) => s.end()).catch(() => undefined);
  }

  #open(): Promise<Stream> {
    if (this.#stream !== undefined) return this.#stream;
    const opening = this.#client.leaseKeepAlive().then((stream) => {
      stream.on('data', (res) => this.#answer(String(res.ID), Number(res.TTL)));
      const broken = (error: Error) => {
        if (this.#stream === opening) this.#stream = undefined;
        this.#failAll(error);
      };
      stream.on('error', broken);
      stream.on('end', () => broken(new ReachError('STORE_UNAVAILABLE', 'etcd ended the keep-alive stream')));
      return stream;
    });
    this.#stream = opening;
    // A failed open is retried by the next refresh.
    opening.catch(() => {
      if (this.#stream === opening) this.#stream = undefined;
    });
    return opening;
  }

  #answer(id: string, ttlSeconds: number): void {
    const queue = this.#waiting.get(id);
    const waiter = queue?.shift();
    if (queue !== undefined && queue.length === 0) this.#waiting.delete(id);
    if (waiter === undefined || waiter.settled) return;
    waiter.settled = true;
    clearTimeout(waiter.timer);
    waiter.resolve(ttlSeconds);
  }

  #failAll(error: Error): void {
    for (const queue of this.#waiting.values()) {
      for (const waiter of queue) {
        if (waiter.settled) continue;
        waiter.settled = true;
        clearTimeout(waiter.timer);
        waiter.reject(error);
      }
    }
    this.#waiting.clear();
  }
}
