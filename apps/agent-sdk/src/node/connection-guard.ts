import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

/** Limits every HTTP server of the control plane applies to its connections. */
export interface ConnectionLimits {
  /** A connection with no request in flight is closed after this long without a byte. @default 30000 */
  idleTimeoutMs: number;
  /** The whole request head must arrive within this (slow-header clients). @default 10000 */
  headerTimeoutMs: number;
  /** The whole request (head and body) must arrive within this. @default 60000 */
  requestTimeoutMs: number;
  /** Connections beyond this are closed at once (and counted). @default 4096 */
  maxConnections: number;
  /** A kept-alive connection serves at most this many requests, then closes (0: no limit). @default 10000 */
  maxRequestsPerConnection: number;
}

/** The defaults of `ConnectionLimits`. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  idleTimeoutMs: 30_000,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  maxConnections: 4096,
  maxRequestsPerConnection: 10_000,
};

/** Live connection figures of one guarded server (read by each app's metrics). */
export interface ConnectionStats {
  /** Connections open now. */
  open: number;
  /** Connections refused because `maxConnections` were open. */
  dropped: number;
  /** Connections the server closed while idle (the idle or header timeout), not the client. */
  idleClosed: number;
}

/**
 * `http.createServer` options for `limits`: Node enforces the header and request timeouts itself, but
 * only on its connection check timer, which runs every 30 s unless told otherwise.
 */
export function connectionServerOptions(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(limits.headerTimeoutMs / 4))),
  };
}

/**
 * Applies `limits` to an HTTP server: a cap on connections (`drop` counted), a keep-alive request limit,
 * and an idle timeout for connections that have sent nothing yet (Node closes only idle kept-alive ones).
 * Pass `connectionServerOptions(limits)` to `createServer` as well. The figures are kept in `stats`.
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  stats: ConnectionStats = { open: 0, dropped: 0, idleClosed: 0 },
): ConnectionStats {
  server.maxConnections = limits.maxConnections;
  server.maxRequestsPerSocket = limits.maxRequestsPerConnection;
  server.keepAliveTimeout = limits.idleTimeoutMs;
  server.headersTimeout = limits.headerTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  const busy = new WeakMap<Socket, number>();
  server.on('connection', (socket: Socket) => {
    stats.open += 1;
    // Node destroys a socket that times out when nobody else handles the timeout.
    socket.setTimeout(limits.idleTimeoutMs);
    let clientEnded = false;
    socket.once('end', () => {
      clientEnded = true;
    });
    socket.once('close', (hadError: boolean) => {
      stats.open -= 1;
      // Closed by us rather than by the client, with nothing in flight: the idle timeout destroys the
      // socket without an error; Node's header timeout answers 408 and destroys it with
      // ERR_HTTP_REQUEST_TIMEOUT (on a loaded machine that check can run before an idle timer of the
      // same length).
      const closedByUs = !hadError || timedOutByServer(socket);
      if (!clientEnded && closedByUs && (busy.get(socket) ?? 0) === 0) stats.idleClosed += 1;
    });
  });
  server.on('drop', () => {
    stats.dropped += 1;
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    // A request in flight may take long (a sync run, an SSE stream); its own timeouts bound it.
    socket.setTimeout(0);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
    });
  });
  return stats;
}

/** Whether Node's HTTP server destroyed `socket` for its header (or request) timeout. */
const timedOutByServer = (socket: Socket): boolean =>
  (socket.errored as NodeJS.ErrnoException | null)?.code === 'ERR_HTTP_REQUEST_TIMEOUT';
