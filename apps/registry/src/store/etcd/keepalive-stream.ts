import http2 from 'node:http2';
import { ReachError } from '@agent-reach/sdk/protocol';
import { GRPC_STATUS } from './etcd-unary.js';
import { decodeKeepAlive, encodeKeepAlives, FrameReader } from './keepalive-codec.js';

/** Where the keep-alive stream runs: the registry's HTTP/2 etcd client (`EtcdUnaryClient`). */
export interface KeepAliveTransport {
  openStream(path: string): Promise<{ stream: http2.ClientHttp2Stream; probe: () => void }>;
  forgetToken(): void;
}

/** Options of the keep-alive stream. */
export interface KeepAliveStreamOptions {
  /** A stream with requests out and no answer for this long is dropped, its refreshes failed. */
  timeoutMs: number;
  /** Refreshes asked within this window go out as one write; 0 batches one event-loop turn. @default 0 */
  batchWindowMs?: number;
}

interface Waiter {
  resolve(ttlSeconds: number): void;
  reject(error: Error): void;
}

/** One open LeaseKeepAlive call and the refreshes it owes answers to. */
interface Open {
  stream: http2.ClientHttp2Stream;
  probe: () => void;
  reader: FrameReader;
  /** Per lease id, the groups of waiters of each request sent, oldest first (etcd answers in order). */
  inFlight: Map<string, Waiter[][]>;
  outstanding: number;
  stall: NodeJS.Timeout | undefined;
  status: number | undefined;
  details: string;
}

const unavailable = (message: string) => new ReachError('STORE_UNAVAILABLE', message);

/**
 * Keeps many leases alive over ONE long-lived LeaseKeepAlive stream, in batches: every refresh asked
 * within one window (by default, one event-loop turn) goes out as one write of many framed requests,
 * and each refresh is answered when its own lease's answer comes back: its TTL, or 0 when etcd has no
 * such lease (never a shared "ok"). Refreshes of the same lease within one window share one request.
 * When the stream breaks or stalls, the refreshes on it fail (STORE_UNAVAILABLE) and the next batch
 * opens a new stream.
 */
export class KeepAliveStream {
  readonly #transport: KeepAliveTransport;
  readonly #timeoutMs: number;
  readonly #windowMs: number;
  #pending = new Map<string, Waiter[]>();
  #scheduled = false;
  #open: Open | undefined;
  #opening: Promise<void> | undefined;
  #closed = false;
  /** Streams opened so far (tests and metrics). */
  opened = 0;

  constructor(transport: KeepAliveTransport, options: KeepAliveStreamOptions) {
    this.#transport = transport;
    this.#timeoutMs = options.timeoutMs;
    this.#windowMs = options.batchWindowMs ?? 0;
  }

  /** Refreshes lease `id` once; resolves with its TTL in seconds, 0 when etcd no longer has it. */
  refresh(id: string): Promise<number> {
    if (this.#closed) return Promise.reject(unavailable('the etcd registry store is closed'));
    return new Promise<number>((resolve, reject) => {
      const group = this.#pending.get(id);
      if (group === undefined) this.#pending.set(id, [{ resolve, reject }]);
      else group.push({ resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      if (this.#windowMs > 0) setTimeout(this.#flush, this.#windowMs);
      else setImmediate(this.#flush);
    });
  }

  /** Ends the stream; pending and in-flight refreshes fail. */
  close(): void {
    this.#closed = true;
    const error = unavailable('the etcd registry store is closed');
    this.#failPending(error);
    if (this.#open !== undefined) this.#break(this.#open, error);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#pending.size === 0 || this.#closed) return;
    const open = this.#open;
    if (open === undefined) {
      this.#connect();
      return;
    }
    const batch = this.#pending;
    this.#pending = new Map();
    for (const [id, group] of batch) {
      const queue = open.inFlight.get(id);
      if (queue === undefined) open.inFlight.set(id, [group]);
      else queue.push(group);
    }
    if (open.outstanding === 0) this.#armStall(open);
    open.outstanding += batch.size;
    open.stream.write(encodeKeepAlives(batch.keys(), batch.size));
  };

  #connect(): void {
    if (this.#opening !== undefined) return;
    this.#opening = this.#transport
      .openStream('/etcdserverpb.Lease/LeaseKeepAlive')
      .then(
        ({ stream, probe }) => {
          this.opened++;
          const open: Open = {
            stream,
            probe,
            reader: new FrameReader(),
            inFlight: new Map(),
            outstanding: 0,
            stall: undefined,
            status: undefined,
            details: '',
          };
          this.#listen(open);
          if (this.#closed) this.#break(open, unavailable('the etcd registry store is closed'));
          else this.#open = open;
        },
        (error: unknown) => {
          this.#failPending(unavailable(`cannot open the etcd keep-alive stream: ${String(error)}`));
        },
      )
      .finally(() => {
        this.#opening = undefined;
        // Refreshes that came while the stream was opening go out now (or open the next one).
        if (this.#pending.size > 0 && !this.#scheduled) this.#flush();
      });
  }

  #listen(open: Open): void {
    const { stream } = open;
    const status = (headers: http2.IncomingHttpHeaders) => {
      const value = headers['grpc-status'];
      if (value === undefined) return;
      open.status = Number(value);
      open.details = String(headers['grpc-message'] ?? '');
      if (open.status === GRPC_STATUS.UNAUTHENTICATED) this.#transport.forgetToken();
    };
    stream.on('response', status);
    stream.on('trailers', status);
    stream.on('data', (chunk: Buffer) => {
      let messages: Buffer[];
      try {
        messages = open.reader.push(chunk);
        // Progress: the stall deadline starts again (once idle, the timer fires and finds nothing owed).
        if (messages.length > 0) open.stall?.refresh();
        for (const message of messages) this.#answer(open, message);
      } catch (error) {
        this.#break(open, unavailable(`bad answer on the etcd keep-alive stream: ${String(error)}`));
      }
    });
    stream.on('error', (error: Error) =>
      this.#break(open, unavailable(`the etcd keep-alive stream failed: ${error.message}`)),
    );
    stream.on('close', () => {
      const why =
        open.status !== undefined && open.status !== GRPC_STATUS.OK
          ? `etcd ended the keep-alive stream: ${open.details} (gRPC status ${open.status})`
          : 'etcd ended the keep-alive stream';
      this.#break(open, unavailable(why));
    });
  }

  #answer(open: Open, message: Buffer): void {
    const { id, ttlSeconds } = decodeKeepAlive(message);
    const queue = open.inFlight.get(id);
    const group = queue?.shift();
    if (group === undefined) return;
    if (queue!.length === 0) open.inFlight.delete(id);
    open.outstanding--;
    const ttl = Math.max(ttlSeconds, 0);
    for (const waiter of group) waiter.resolve(ttl);
  }

  #armStall(open: Open): void {
    if (open.stall !== undefined) {
      open.stall.refresh();
      return;
    }
    open.stall = setTimeout(() => {
      if (open.outstanding === 0) return;
      open.probe();
      this.#break(open, unavailable(`etcd did not answer a keep-alive within ${this.#timeoutMs} ms`));
    }, this.#timeoutMs);
    open.stall.unref();
  }

  /** Retires `open` (once): its unanswered refreshes fail with `error`; the next batch opens anew. */
  #break(open: Open, error: Error): void {
    if (this.#open === open) this.#open = undefined;
    clearTimeout(open.stall);
    const owed = open.inFlight;
    open.inFlight = new Map();
    open.outstanding = 0;
    for (const queue of owed.values())
      for (const group of queue) for (const waiter of group) waiter.reject(error);
    if (!open.stream.destroyed) open.stream.close(http2.constants.NGHTTP2_CANCEL);
  }

  #failPending(error: Error): void {
    const pending = this.#pending;
    this.#pending = new Map();
    for (const group of pending.values()) for (const waiter of group) waiter.reject(error);
  }
}
