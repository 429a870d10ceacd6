import { parentPort, workerData } from 'node:worker_threads';
import { type DnsResponder, startDnsResponder } from './responder.js';
import type { ZoneSettings } from './zone.js';
import { ZoneReplica, type ZoneUpdate } from './zone-replica.js';

/** What the responder thread is started with (plain data: it crosses threads). */
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

/** Messages to the responder thread. */
export type ToResponder = { kind: 'update'; update: ZoneUpdate } | { kind: 'stop' };

/** Messages from the responder thread. */
export type FromResponder =
  | { kind: 'listening'; host: string; port: number }
  | { kind: 'failed'; message: string; code: string | undefined }
  | { kind: 'socket-error'; message: string }
  | { kind: 'stopped' };

// The thread's whole job: own the sockets and a replica of the zone, so the main loop never delays an answer.
const port = parentPort!;
const data = workerData as ResponderWorkerData;
const post = (message: FromResponder) => port.postMessage(message);
const replica = new ZoneReplica(data.settings);
replica.apply(data.initial);
let responder: DnsResponder | undefined;

port.on('message', (message: ToResponder) => {
  if (message.kind === 'update') {
    replica.apply(message.update);
    return;
  }
  void (responder?.stop() ?? Promise.resolve()).then(() => {
    post({ kind: 'stopped' });
    port.close();
  });
});

const { settings: _settings, initial: _initial, ...options } = data;
startDnsResponder({
  ...options,
  zone: replica,
  onError: (error) => post({ kind: 'socket-error', message: error.message }),
}).then(
  (started) => {
    responder = started;
    post({ kind: 'listening', host: started.host, port: started.port });
  },
  (error: NodeJS.ErrnoException) => {
    post({ kind: 'failed', message: error.message, code: error.code });
    port.close();
  },
);
