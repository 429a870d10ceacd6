import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { type LookupOneOptions, lookup } from 'node:dns';
import { createServer, isIP, isIPv6, type Server, type Socket } from 'node:net';
import { handleMessage, type SnapshotProvider } from './packet-handler.js';
import { serveTcpConnection } from './tcp-connection.js';

/** Where and how the authoritative responder listens. */
export interface DnsResponderOptions {
  /** Usually a Zone. */
  zone: SnapshotProvider;
  /** @default '127.0.0.1' */
  host?: string;
  /** UDP and TCP port; 0 picks a free port (the same one for both). @default 8053 */
  port?: number;
  /** @default 10000 */
  tcpIdleTimeoutMs?: number;
  /** @default 256 */
  maxTcpConnections?: number;
  /** @default 4096 */
  maxQueryBytes?: number;
  /** Told about socket errors the responder survives. */
  onError?: (error: Error) => void;
  /** Filled with the TCP connection figures (open, refused at the cap, closed idle) for metrics. */
  tcpStats?: { open: number; dropped: number; idleClosed: number };
}

/** A running responder. */
export interface DnsResponder {
  readonly host: string;
  /** The port it answers on, over both UDP and TCP. */
  readonly port: number;
  /** Stops listening and closes every open TCP connection. */
  stop(): Promise<void>;
}

/**
 * One UDP reply in this many is sent with a callback, which is how dgram reports a send error. A send
 * with a callback costs a \`process.nextTick\` even when it succeeds (Node 20's dgram calls back on the
 * next tick after a synchronous send): ~2,500 instructions per reply, 11 % of a Node UDP echo's
 * (callgrind). Without one, dgram drops the error silently. Sampled, a socket whose every send fails
 * (a firewall's EPERM, a full buffer that stays full) is still reported; one lost reply, like any
 * lost datagram, is the client's to retry.
 */
export const UDP_SEND_CHECK_EVERY = 256;

/**
 * Answers every query that arrives on `udp` from `zone`. A datagram from port 0 (only a forged one
 * has it) is dropped: no reply can go there, and dgram throws on a send to it, which ended the thread.
 */
export function answerUdp(udp: UdpSocket, zone: SnapshotProvider, onError: (error: Error) => void): void {
  // One callback for the checked sends, not a closure per packet.
  const sent = (error: Error | null) => {
    if (error) onError(error);
  };
  let untilCheck = 0;
  udp.on('message', (msg, rinfo) => {
    if (rinfo.port === 0) return;
    const reply = handleMessage(zone, msg, 'udp');
    if (reply === null) return;
    if (untilCheck-- > 0) udp.send(reply, rinfo.port, rinfo.address);
    else {
      untilCheck = UDP_SEND_CHECK_EVERY - 1;
      udp.send(reply, rinfo.port, rinfo.address, sent);
    }
  });
}

/**
 * dgram's address lookup for sends and binds: an IP literal (every reply goes to a query's source
 * address) is handed back at once; dgram's default, `dns.lookup`, answers even a literal a tick later,
 * which cost every reply a deferred task. A host name (`dns.listen` may name one) is still looked up.
 */
function literalOrLookup(
  address: string,
  options: LookupOneOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string, family: number) => void,
): void {
  const family = isIP(address);
  if (family !== 0) callback(null, address, family);
  else lookup(address, options, callback);
}

function bindUdp(host: string, port: number, onError: (e: Error) => void): Promise<UdpSocket> {
  const socket = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4', lookup: literalOrLookup });
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      socket.close();
      reject(error);
    };
    socket.once('error', fail);
    socket.bind(port, host, () => {
      socket.off('error', fail);
      socket.on('error', onError);
      resolve(socket);
    });
  });
}

function listenTcp(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Binds UDP then TCP on the same port; with port 0, retries until both get the same free port. */
async function bindBoth(
  host: string,
  port: number,
  server: Server,
  onError: (e: Error) => void,
): Promise<{ udp: UdpSocket; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const udp = await bindUdp(host, port, onError);
    const bound = udp.address().port;
    try {
      await listenTcp(server, host, bound);
      return { udp, port: bound };
    } catch (error) {
      udp.close();
      if (port !== 0 || attempt >= 20 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
}

/**
 * A port on `host` free over both UDP and TCP just now (bound and closed again), for starting several
 * processes on one address when 0 was asked for.
 */
export async function freeDnsPort(host: string): Promise<number> {
  const server = createServer();
  const { udp, port } = await bindBoth(host, 0, server, () => {});
  await Promise.all([
    new Promise<void>((resolve) => udp.close(() => resolve())),
    new Promise<void>((resolve) => server.close(() => resolve())),
  ]);
  return port;
}

/** Starts the authoritative DNS responder on UDP and TCP; resolves once both are listening. */
export async function startDnsResponder(options: DnsResponderOptions): Promise<DnsResponder> {
  const host = options.host ?? '127.0.0.1';
  const onError = options.onError ?? (() => {});
  const limits = {
    idleTimeoutMs: options.tcpIdleTimeoutMs ?? 10_000,
    maxQueryBytes: options.maxQueryBytes ?? 4096,
  };
  const { zone } = options;
  const connections = new Set<Socket>();
  const handleTcp = (msg: Buffer) => handleMessage(zone, msg, 'tcp');
  const stats = options.tcpStats ?? { open: 0, dropped: 0, idleClosed: 0 };
  const server = createServer((socket) => {
    connections.add(socket);
    stats.open += 1;
    socket.once('close', () => {
      connections.delete(socket);
      stats.open -= 1;
    });
    socket.once('timeout', () => {
      stats.idleClosed += 1;
    });
    serveTcpConnection(socket, limits, handleTcp);
  });
  server.maxConnections = options.maxTcpConnections ?? 256;
  server.on('drop', () => {
    stats.dropped += 1;
  });
  server.on('error', onError);
  const { udp, port } = await bindBoth(host, options.port ?? 8053, server, onError);
  answerUdp(udp, zone, onError);
  let stopped: Promise<void> | undefined;
  return {
    host,
    port,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        udp.close();
        for (const socket of connections) socket.destroy();
        server.close(() => resolve());
      });
      return stopped;
    },
  };
}
