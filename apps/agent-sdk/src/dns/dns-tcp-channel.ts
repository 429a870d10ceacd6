import { connect, type Socket } from 'node:net';

/** What one exchange on the channel gave: the answer, or why there is none. */
export type TcpExchange = { ok: true; answer: Buffer } | { ok: false; failure: 'timeout' | 'closed' };

/**
 * One DNS-over-TCP connection kept open and shared by many questions (RFC 7766 6.2.1): queries are
 * pipelined, answers matched by id, and the connection closes itself after `idleMs` without questions.
 */
export class DnsTcpChannel {
  private socket: Socket | null = null;
  private received: Buffer = Buffer.alloc(0);
  /** Waiting questions by id, each with the connection it was sent on. */
  private readonly pending = new Map<number, { socket: Socket; finish: (result: TcpExchange) => void }>();
  private idleTimer: NodeJS.Timeout | null = null;
  /** Connections opened so far (tests). */
  opened = 0;

  /** @param idleMs how long an unused connection stays open. @default 5000 */
  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly idleMs = 5000,
  ) {}

  /** Whether a query with `id` is waiting on this channel (ids must be unique while pending). */
  busy(id: number): boolean {
    return this.pending.has(id);
  }

  /** Sends one query (its first two octets are its id) and waits up to `timeoutMs` for the answer. */
  exchange(id: number, query: Buffer, timeoutMs: number): Promise<TcpExchange> {
    const socket = this.open();
    return new Promise((resolve) => {
      const finish = (result: TcpExchange): void => {
        clearTimeout(timer);
        if (this.pending.get(id)?.finish === finish) this.pending.delete(id);
        this.armIdle();
        resolve(result);
      };
      const timer = setTimeout(() => {
        finish({ ok: false, failure: 'timeout' });
        // A silent connection would stall every later question: the next one opens a new connection.
        this.drop(socket);
      }, timeoutMs);
      this.pending.set(id, { socket, finish });
      const frame = Buffer.allocUnsafe(2 + query.length);
      frame.writeUInt16BE(query.length, 0);
      query.copy(frame, 2);
      // Questions asked in the same tick leave in one write.
      if (socket.writableCorked === 0) {
        socket.cork();
        process.nextTick(() => socket.uncork());
      }
      socket.write(frame);
    });
  }

  /** Closes the connection; questions still waiting get `closed`. */
  close(): void {
    if (this.socket !== null) this.drop(this.socket);
  }

  private open(): Socket {
    if (this.idleTimer !== null) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    if (this.socket !== null) return this.socket;
    const socket = connect({ host: this.host, port: this.port });
    this.opened++;
    this.socket = socket;
    this.received = Buffer.alloc(0);
    // The kept connection never holds the process open; each waiting question has its own timer.
    socket.unref();
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (this.socket === socket) this.read(chunk);
    });
    socket.on('error', () => this.drop(socket));
    socket.on('close', () => {
      if (this.socket === socket) this.socket = null;
      for (const entry of [...this.pending.values()])
        if (entry.socket === socket) entry.finish({ ok: false, failure: 'closed' });
    });
    return socket;
  }

  private drop(socket: Socket): void {
    if (this.socket === socket) this.socket = null;
    socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    while (this.received.length >= 2) {
      const length = this.received.readUInt16BE(0);
      if (this.received.length < 2 + length) break;
      const answer = Buffer.from(this.received.subarray(2, 2 + length));
      this.received = this.received.subarray(2 + length);
      if (answer.length >= 2) this.pending.get(answer.readUInt16BE(0))?.finish({ ok: true, answer });
    }
  }

  private armIdle(): void {
    if (this.pending.size > 0 || this.socket === null || this.idleTimer !== null) return;
    const socket = this.socket;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.pending.size === 0) this.drop(socket);
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
