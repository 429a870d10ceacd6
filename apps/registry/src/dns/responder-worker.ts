import type { Socket as UdpSocket } from 'node:dgram';
import { parentPort } from 'node:worker_threads';
import { answerOnSocket, type DnsResponder, startDnsResponder } from './responder.js';
import type { ZoneSettings } from './zone.js';
import { ZoneReplica, type ZoneUpdate } from './zone-replica.js';

/** What a responder worker is started with (plain data: it crosses threads and processes). */
export interface ResponderWorkerData {
  settings: ZoneSettings;
  initial: ZoneUpdate;
  host: string;
  port: number;
  tcpIdleTimeoutMs?: number;
  maxTcpConnections?: number;
  maxQueryBytes?: number;
  answerCacheEntries?: number;
}

/**
 * Messages to a responder worker, `start` first. A `start` that comes with a UDP socket (a child
 * process sharing the registry's socket) answers UDP on it; without one (the thread), the worker
 * binds UDP and TCP itself.
 */
export type ToResponder =
  | { kind: 'start'; data: ResponderWorkerData }
  | { kind: 'update'; update: ZoneUpdate }
  | { kind: 'stop' };

/** Messages from a responder worker. */
export type FromResponder =
  | { kind: 'listening'; host: string; port: number }
  | { kind: 'failed'; message: string; code: string | undefined }
  | { kind: 'socket-error'; message: string }
  | { kind: 'stopped' };

/** How a worker talks with the registry: a thread's port or a child process's IPC channel. */
interface Channel {
  post(message: FromResponder): void;
  onMessage(handler: (message: ToResponder, socket: UdpSocket | undefined) => void): void;
  /** Ends the conversation; the worker then exits once its sockets are closed. */
  close(): void;
}

/** The worker's whole job: answer from a replica of the zone that follows the registry's updates. */
function serve(channel: Channel): void {
  let replica: ZoneReplica | undefined;
  let responder: DnsResponder | undefined;
  const onError = (error: Error) => channel.post({ kind: 'socket-error', message: error.message });

  const start = (data: ResponderWorkerData, udp: UdpSocket | undefined) => {
    const { settings, initial, ...options } = data;
    const zone = new ZoneReplica(settings);
    zone.apply(initial);
    replica = zone;
    const listening =
      udp === undefined
        ? startDnsResponder({ ...options, zone, onError })
        : Promise.resolve(
            answerOnSocket({ udp, zone, onError, answerCacheEntries: options.answerCacheEntries }),
          );
    listening.then(
      (started) => {
        responder = started;
        channel.post({ kind: 'listening', host: started.host, port: started.port });
      },
      (error: NodeJS.ErrnoException) => {
        channel.post({ kind: 'failed', message: error.message, code: error.code });
        channel.close();
      },
    );
  };

  channel.onMessage((message, udp) => {
    if (message.kind === 'start') start(message.data, udp);
    else if (message.kind === 'update') replica?.apply(message.update);
    else
      void (responder?.stop() ?? Promise.resolve()).then(() => {
        channel.post({ kind: 'stopped' });
        channel.close();
      });
  });
}

const port = parentPort;
if (port !== null) {
  serve({
    post: (message) => port.postMessage(message),
    onMessage: (handler) => port.on('message', (message: ToResponder) => handler(message, undefined)),
    close: () => port.close(),
  });
} else {
  // A child process: a registry that is gone (even killed) closes the channel, and its responders follow.
  process.once('disconnect', () => process.exit(0));
  serve({
    post: (message) => process.send?.(message),
    onMessage: (handler) => process.on('message', handler as (message: unknown, socket: unknown) => void),
    close: () => process.disconnect(),
  });
}
