import { Worker } from 'node:worker_threads';
import type { DnsResponder, DnsResponderOptions } from './responder.js';
import {
  exportFrom,
  launchResponder,
  type OpenPeer,
  RESPONDER_WORKER_URL,
  type ResponderPeer,
  superviseResponder,
  WorkerRequests,
} from './responder-supervisor.js';
import type { ToResponder } from './responder-worker.js';
import type { Zone } from './zone.js';
import type { ZoneExport } from './zone-file.js';

/** Where and how the responder thread listens; the zone is followed from this thread. */
export interface DnsResponderThreadOptions extends Omit<DnsResponderOptions, 'zone'> {
  zone: Zone;
  /** The thread died (`error` says how) and is being started again after `delayMs`. */
  onRestart?: (error: Error, delayMs: number) => void;
}

/** The responder on its own thread; a thread that dies is started again on the same port. */
export interface DnsResponderThread extends DnsResponder {
  /** The thread answering now (a new one after each restart). */
  readonly worker: Worker;
  /** How many times the thread died and was started again. */
  readonly restarts: number;
  /** The zone file from the thread's zone (it holds the only encoded copy), frozen at one serial. */
  exportZone(): Promise<ZoneExport>;
  /**
   * The thread's JS heap (used and committed) and buffers after full GCs, in bytes (first answering
   * every name once when asked): the thread is an isolate of its own, which this one cannot measure.
   */
  memory(options?: {
    answerEveryName?: boolean;
  }): Promise<{ heapUsed: number; heapTotal: number; external: number }>;
}

/**
 * The responder thread's young generation, in MB (V8 splits it in three: two semi-spaces and the new
 * large-object space). By default V8 grows a thread's semi-spaces to 16 MB each when zone updates
 * arrive in bursts, and keeps both committed. 6 MB since session 19 (16 before): in the churn suite at
 * 100,000 instances, alternated runs, the registry's RSS after the churn run had a median of 481 MB
 * against 533 (five runs against six), registrations alone 5,922/s against 5,002, and the DNS p99
 * under churn was no worse (7.48 against 7.80 ms); the thread scavenges ~3x as often, with shorter
 * longest pauses (docs/registry.md, Memory).
 */
const RESPONDER_YOUNG_GENERATION_MB = 6;

/** A responder worker on a new thread, which binds its own sockets. */
type ThreadPeer = ResponderPeer & { worker: Worker; requests: WorkerRequests };

const openThread: OpenPeer<ThreadPeer> = (start) => {
  const worker = new Worker(RESPONDER_WORKER_URL, {
    resourceLimits: { maxYoungGenerationSizeMb: RESPONDER_YOUNG_GENERATION_MB },
  });
  worker.postMessage(start);
  const peer: ResponderPeer = {
    send: (message: ToResponder) => worker.postMessage(message),
    onMessage: (handler) => void worker.on('message', handler),
    onError: (handler) => void worker.on('error', handler),
    exited: new Promise<string>((resolve) => worker.once('exit', (code) => resolve(`code ${code}`))),
    kill: () => void worker.terminate(),
  };
  return { ...peer, worker, requests: new WorkerRequests(peer) };
};

/**
 * Starts the authoritative responder on a worker thread of its own, which owns the UDP and TCP
 * sockets and a replica of `zone` fed with its changes: GC pauses and work on this thread's event
 * loop (HTTP, sweeps, journal writes) never delay an answer. Resolves once both sockets listen.
 * Should the thread die (an uncaught error, out of memory), a new one is started on the same address
 * with a fresh copy of the zone, after 100 ms and then backing off up to 30 s while that fails.
 */
export async function startDnsResponderThread(
  options: DnsResponderThreadOptions,
): Promise<DnsResponderThread> {
  const { zone, onError = () => {}, onRestart = () => {}, ...listen } = options;
  // A restart binds the address the first thread got (port 0 is resolved by then).
  let address = listen;
  const supervised = await superviseResponder(async () => {
    const launched = await launchResponder(zone, openThread, address, onError);
    address = { ...listen, host: launched.host, port: launched.port };
    return launched;
  }, onRestart);
  const { host, port } = supervised.current;
  return {
    host,
    port,
    get worker() {
      return supervised.current.peer.worker;
    },
    get restarts() {
      return supervised.restarts;
    },
    exportZone: () => exportFrom(supervised.current.peer.requests),
    async memory(options = {}) {
      const { requests } = supervised.current.peer;
      const request = {
        kind: 'measure' as const,
        id: requests.newId(),
        answerEveryName: options.answerEveryName ?? false,
      };
      const { heapUsed, heapTotal, external } = await requests.ask(request, 'measured');
      return { heapUsed, heapTotal, external };
    },
    stop: () => supervised.stop(),
  };
}
