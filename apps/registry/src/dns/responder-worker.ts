import { writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { type DnsResponder, startDnsResponder } from './responder.js';
import { UpdateDecoder } from './update-text.js';
import type { ZoneSettings } from './zone.js';
import { yieldToEventLoop, zoneFileChunks } from './zone-file.js';
import { answerEveryName } from './zone-queries.js';
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
}

/**
 * Messages to a responder worker, `start` first. The worker binds UDP and TCP itself (in a cluster
 * worker process, the registry makes those binds and shares the sockets among its processes).
 */
export type ToResponder =
  | { kind: 'start'; data: ResponderWorkerData }
  /** One slice of a zone update as text (encodedSlices): decoded when its turn comes. */
  | { kind: 'update'; encoded: string }
  | { kind: 'stop' }
  | WorkerRequest;

/**
 * Requests answered by a reply with the same `id`: `export` freezes the zone for a zone-file export
 * (`export-ready`), each `export-next` writes its next piece (`export-chunk`, text null at the end),
 * `export-end` drops it; `measure` reports the worker's heap (used and committed) and buffers after full GCs (the
 * memory bench), first answering every name once when asked.
 */
export type WorkerRequest =
  | { kind: 'export'; id: number }
  | { kind: 'export-next'; id: number }
  | { kind: 'export-end'; id: number }
  | { kind: 'measure'; id: number; answerEveryName: boolean };

/** Messages from a responder worker. */
export type FromResponder =
  /** A child process listens for messages (sent first; a thread's port keeps messages until it listens). */
  | { kind: 'ready' }
  | { kind: 'listening'; host: string; port: number }
  | { kind: 'failed'; message: string; code: string | undefined }
  | { kind: 'socket-error'; message: string }
  | { kind: 'stopped' }
  | WorkerReply;

/** Replies to WorkerRequests. */
export type WorkerReply =
  | { kind: 'export-ready'; id: number; serial: number }
  | { kind: 'export-chunk'; id: number; text: string | null }
  | { kind: 'measured'; id: number; heapUsed: number; heapTotal: number; external: number }
  | { kind: 'request-failed'; id: number; message: string };

/** A full GC on request (the memory bench): the flag is set before the context that reads `gc` exists. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 4; i++) gc();
}

/** The responder thread's name on Linux (`top -H`, `/proc/<pid>/task/<tid>/comm`; the churn bench finds it by it). */
export const RESPONDER_THREAD_NAME = 'reach-dns';

/** Names the calling thread where the OS lets a thread do so through /proc (Linux); elsewhere nothing. */
function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // Not Linux, or /proc not mounted: the thread keeps its inherited name.
  }
}

/** How a worker talks with the registry: a thread's port or a child process's IPC channel. */
interface Channel {
  post(message: FromResponder): void;
  onMessage(handler: (message: ToResponder) => void): void;
  /** Ends the conversation; the worker then exits once its sockets are closed. */
  close(): void;
}

/** The worker's whole job: answer from a replica of the zone that follows the registry's updates. */
function serve(channel: Channel): void {
  let replica: ZoneReplica | undefined;
  /** Decodes updates into the objects the replica already shares (made with it). */
  let decoder = new UpdateDecoder();
  let responder: DnsResponder | undefined;
  const onError = (error: Error) => channel.post({ kind: 'socket-error', message: error.message });

  const start = (data: ResponderWorkerData) => {
    const { settings, initial, ...options } = data;
    const zone = new ZoneReplica(settings);
    zone.apply(initial);
    replica = zone;
    decoder = new UpdateDecoder(zone);
    startDnsResponder({ ...options, zone, onError }).then(
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

  /**
   * Updates not yet applied, still encoded, one decoded and applied per event-loop turn: queries that
   * arrived meanwhile are answered between two (the registry sends big updates as slices:
   * encodedSlices).
   */
  const queued: string[] = [];
  let applying = false;
  const applyNext = () => {
    const encoded = queued.shift();
    if (encoded !== undefined) replica?.apply(decoder.decode(encoded));
    if (queued.length > 0) setImmediate(applyNext);
    else applying = false;
  };
  const enqueue = (encoded: string) => {
    queued.push(encoded);
    if (applying) return;
    applying = true;
    setImmediate(applyNext);
  };
  /** Applies every queued update now: an export or a measurement sees everything sent before it. */
  const catchUp = () => {
    for (let encoded = queued.shift(); encoded !== undefined; encoded = queued.shift())
      replica?.apply(decoder.decode(encoded));
  };

  /** Zone files being exported, by request id: each piece is written when asked for. */
  const exports = new Map<number, Generator<string>>();
  const request = async (message: WorkerRequest): Promise<WorkerReply | undefined> => {
    const { id } = message;
    if (replica === undefined) throw new Error('the responder has not started');
    catchUp();
    switch (message.kind) {
      case 'export': {
        const frozen = await replica.freeze(yieldToEventLoop);
        exports.set(id, zoneFileChunks(frozen));
        return { kind: 'export-ready', id, serial: frozen.serial };
      }
      case 'export-next': {
        const next = exports.get(id)?.next();
        if (next === undefined || next.done === true) {
          exports.delete(id);
          return { kind: 'export-chunk', id, text: null };
        }
        return { kind: 'export-chunk', id, text: next.value };
      }
      case 'export-end':
        exports.delete(id);
        return undefined;
      case 'measure': {
        if (message.answerEveryName) answerEveryName(replica);
        collectGarbage();
        const { heapUsed, heapTotal, external } = process.memoryUsage();
        return { kind: 'measured', id, heapUsed, heapTotal, external };
      }
    }
  };

  channel.onMessage((message) => {
    if (message.kind === 'start') start(message.data);
    else if (message.kind === 'update') enqueue(message.encoded);
    else if (message.kind === 'stop')
      void (responder?.stop() ?? Promise.resolve()).then(() => {
        channel.post({ kind: 'stopped' });
        channel.close();
      });
    else
      request(message).then(
        (reply) => reply !== undefined && channel.post(reply),
        (error: Error) => channel.post({ kind: 'request-failed', id: message.id, message: error.message }),
      );
  });
}

const port = parentPort;
if (port !== null) {
  nameThisThread(RESPONDER_THREAD_NAME);
  serve({
    post: (message) => port.postMessage(message),
    onMessage: (handler) => port.on('message', handler),
    close: () => port.close(),
  });
} else {
  // A child process (a cluster worker): a registry that is gone (even killed) closes the channel, and
  // its responders follow.
  process.once('disconnect', () => process.exit(0));
  serve({
    post: (message) => process.send?.(message),
    onMessage: (handler) => process.on('message', handler as (message: unknown) => void),
    close: () => process.disconnect(),
  });
  process.send?.({ kind: 'ready' } satisfies FromResponder);
}
