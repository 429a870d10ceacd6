import type { Socket } from 'node:net';

/** Limits for one DNS-over-TCP connection (RFC 7766). */
export interface TcpLimits {
  /** Closes a connection that sends nothing for this long. */
  idleTimeoutMs: number;
  /** Closes a connection whose announced message is larger (queries are small). */
  maxQueryBytes: number;
}

/**
 * Serves length-prefixed DNS messages on one TCP connection, any number in a row, answering in
 * order. While the client is not reading our answers, it stops reading and answering.
 */
export function serveTcpConnection(
  socket: Socket,
  limits: TcpLimits,
  handle: (msg: Buffer) => Buffer | null,
): void {
  let pending: Buffer = Buffer.alloc(0);
  let blocked = false;

  const work = (): void => {
    // Answers to pipelined queries leave in one write, not one syscall each.
    socket.cork();
    try {
      drainQueries();
    } finally {
      socket.uncork();
    }
    // Keep a small remainder on its own, not as a view into a large chunk.
    if (pending.length > 0 && pending.byteOffset !== 0) pending = Buffer.from(pending);
  };

  const drainQueries = (): void => {
    while (!blocked && pending.length >= 2) {
      const length = pending.readUInt16BE(0);
      if (length === 0 || length > limits.maxQueryBytes) {
        socket.destroy();
        return;
      }
      if (pending.length < 2 + length) break;
      const msg = pending.subarray(2, 2 + length);
      pending = pending.subarray(2 + length);
      const reply = handle(msg);
      if (reply === null) continue;
      const frame = Buffer.allocUnsafe(2 + reply.length);
      frame.writeUInt16BE(reply.length, 0);
      reply.copy(frame, 2);
      if (!socket.write(frame)) {
        blocked = true;
        socket.pause();
      }
    }
  };

  socket.setNoDelay(true);
  socket.setTimeout(limits.idleTimeoutMs, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('drain', () => {
    blocked = false;
    socket.resume();
    work();
  });
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    // A client that will not read cannot make us buffer without bound.
    if (pending.length > 2 * (limits.maxQueryBytes + 2) + 65_536) {
      socket.destroy();
      return;
    }
    work();
  });
}
