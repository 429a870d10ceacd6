import { connect, type Socket } from 'node:net';

/** A response's status and body text. */
export interface RawResponse {
  status: number;
  body: string;
}

/**
 * The bytes of one HTTP/1.1 request, built once before a run: what node:http's client sends for it
 * (host, keep-alive, the body's type and length; a bodiless request carries no length, as there).
 */
export function encodeRequest(
  target: URL,
  method: string,
  path: string,
  body?: string,
  token?: string,
): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${target.host}\r\nconnection: keep-alive\r\n`;
  if (token !== undefined) head += `authorization: Bearer ${token}\r\n`;
  if (body !== undefined)
    head += `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
  return Buffer.from(`${head}\r\n${body ?? ''}`);
}

interface Waiting {
  request: Buffer;
  resolve: (response: RawResponse) => void;
  reject: (error: Error) => void;
}

/** One kept-alive connection with at most one request on it (no pipelining), and its response parser. */
class Connection {
  private buffered: Buffer = Buffer.alloc(0);
  private current: Waiting | undefined;
  closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly onIdle: (connection: Connection) => void,
    private readonly onClosed: (connection: Connection) => void,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.data(chunk));
    const close = (error?: Error) => {
      if (this.closed) return;
      this.closed = true;
      const lost = this.current;
      this.current = undefined;
      lost?.reject(error ?? new Error('connection closed before the response'));
      this.onClosed(this);
    };
    socket.on('error', close);
    socket.on('close', () => close());
  }

  send(waiting: Waiting): void {
    this.current = waiting;
    this.socket.write(waiting.request);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private data(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const response = this.parse();
    if (response === undefined) return;
    const done = this.current;
    this.current = undefined;
    if (done === undefined) {
      this.socket.destroy(new Error('a response nobody asked for'));
      return;
    }
    done.resolve(response.response);
    if (response.close) this.socket.destroy();
    else this.onIdle(this);
  }

  /** A whole response at the front of the buffer (taken off it), or undefined while it is incomplete. */
  private parse(): { response: RawResponse; close: boolean } | undefined {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = this.buffered.toString('latin1', 0, end);
    const lines = head.split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    let length = 0;
    let chunked = false;
    let close = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.includes('chunked');
      else if (name === 'connection') close = value === 'close';
    }
    let at = end + 4;
    let body: Buffer;
    if (chunked) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = this.buffered.indexOf('\r\n', at);
        if (lineEnd < 0) return undefined;
        const size = Number.parseInt(this.buffered.toString('latin1', at, lineEnd), 16);
        if (this.buffered.length < lineEnd + 2 + size + 2) return undefined;
        parts.push(this.buffered.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      if (this.buffered.length < at + length) return undefined;
      body = this.buffered.subarray(at, at + length);
      at += length;
    }
    const text = body.toString('utf8');
    this.buffered = this.buffered.subarray(at);
    return { response: { status, body: text }, close };
  }
}

/**
 * Requests already encoded, sent over at most `maxSockets` kept-alive connections, one request on a
 * connection at a time (as node:http's Agent does); more wait in a queue. Much less client CPU per
 * request than node:http's client, which on a two-core machine otherwise takes CPU from the server.
 */
export class RawHttpPool {
  private readonly idle: Connection[] = [];
  private readonly queue: Waiting[] = [];
  private open = 0;

  constructor(
    private readonly target: URL,
    private readonly maxSockets = 64,
  ) {}

  request(request: Buffer): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const waiting = { request, resolve, reject };
      const connection = this.idle.pop();
      if (connection !== undefined) connection.send(waiting);
      else if (this.open < this.maxSockets) this.connect().send(waiting);
      else this.queue.push(waiting);
    });
  }

  close(): void {
    for (const connection of this.idle.splice(0)) connection.destroy();
  }

  private connect(): Connection {
    this.open++;
    const socket = connect({ host: this.target.hostname, port: Number(this.target.port) });
    return new Connection(
      socket,
      (connection) => {
        const next = this.queue.shift();
        if (next !== undefined) connection.send(next);
        else this.idle.push(connection);
      },
      (connection) => {
        this.open--;
        const at = this.idle.indexOf(connection);
        if (at >= 0) this.idle.splice(at, 1);
        // Requests still queued get a new connection.
        const next = this.queue.shift();
        if (next !== undefined) this.connect().send(next);
      },
    );
  }
}
