import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { type DnsResponder, type DnsResponderOptions, freeDnsPort } from './responder.js';
import {
  exportFrom,
  launchResponder,
  type OpenPeer,
  RESPONDER_WORKER_URL,
  type ResponderPeer,
  type SupervisedResponder,
  superviseResponder,
  WorkerRequests,
} from './responder-supervisor.js';
import type { FromResponder, ToResponder } from './responder-worker.js';
import type { Zone } from './zone.js';
import type { ZoneExport } from './zone-file.js';

/** Where and how the responder processes listen, and the zone they answer from (followed from this thread). */
export interface DnsResponderProcessesOptions extends Omit<DnsResponderOptions, 'zone' | 'tcpStats'> {
  zone: Zone;
  /** How many processes. */
  count: number;
  /** Process `index` died (`error` says how) and is being started again after `delayMs`. */
  onRestart?: (index: number, error: Error, delayMs: number) => void;
}

/** The responder as child processes sharing its sockets; one that dies is started again. */
export interface DnsResponderProcesses extends DnsResponder {
  /** The process ids answering now (new ones after restarts). */
  pids(): number[];
  /** How many times a process died and was started again, over all of them. */
  readonly restarts: number;
  /** The zone file from the first process's zone, frozen at one serial (the registry's main thread holds none). */
  exportZone(): Promise<ZoneExport>;
}

type ProcessPeer = ResponderPeer & { worker: ClusterWorker; requests: WorkerRequests };

/**
 * A responder worker in a new cluster worker process. Its `startDnsResponder` binds UDP and TCP the
 * ordinary way; in a cluster worker both binds are made by this (the primary) process, once per
 * address, and the sockets shared: every worker reads the one UDP socket and accepts on the one TCP
 * listener, and this process does neither (its event loop can stall without delaying an answer).
 */
const openProcess: OpenPeer<ProcessPeer> = (start) => {
  // Workers accept TCP themselves rather than this process accepting and handing connections over
  // (round-robin, the default). The policy is the process's and fixed at the first setupPrimary.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  // Advanced serialization: zone updates carry Buffers. No execArgv: the boot file loads tsx itself.
  cluster.setupPrimary({
    exec: fileURLToPath(RESPONDER_WORKER_URL),
    args: [],
    execArgv: [],
    serialization: 'advanced',
  });
  const worker = cluster.fork();
  // A cluster worker's IPC channel is open from its first moment, so a message that arrives before the
  // worker's module has loaded and listens is lost: everything waits for its `ready`.
  let waiting: ToResponder[] | undefined = [start];
  worker.on('message', (message: FromResponder) => {
    if (message.kind !== 'ready' || waiting === undefined) return;
    for (const queued of waiting) worker.send(queued);
    waiting = undefined;
  });
  const peer: ResponderPeer = {
    send: (message: ToResponder) => {
      if (waiting !== undefined) waiting.push(message);
      else if (worker.isConnected()) worker.send(message);
    },
    onMessage: (handler) => void worker.on('message', handler),
    onError: (handler) => void worker.on('error', handler),
    exited: new Promise<string>((resolve) =>
      worker.once('exit', (code, signal) => resolve(signal === null ? `code ${code}` : `signal ${signal}`)),
    ),
    kill: () => void worker.process.kill('SIGKILL'),
  };
  return { ...peer, worker, requests: new WorkerRequests(peer) };
};

/**
 * Starts the authoritative responder as `count` child processes (node:cluster workers), each with a
 * replica of `zone` fed over IPC like the responder thread's, all answering UDP and TCP on one
 * address: the kernel hands each datagram to one reader, so a process per core lifts UDP throughput
 * past one Node thread's socket cost, and this thread answers nothing. Port 0 is first resolved to a
 * port free over both UDP and TCP. Resolves once every process answers; throws if one cannot be
 * started (the others are stopped and the sockets closed).
 */
export async function startDnsResponderProcesses(
  options: DnsResponderProcessesOptions,
): Promise<DnsResponderProcesses> {
  const { zone, count, onError = () => {}, onRestart = () => {}, ...listen } = options;
  const host = listen.host ?? '127.0.0.1';
  // Every worker must ask for the same address: the primary shares one socket per address asked for.
  const port = listen.port === 0 ? await freeDnsPort(host) : (listen.port ?? 8053);
  const address = { ...listen, host, port };
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, index) =>
      superviseResponder(
        () => launchResponder(zone, openProcess, address, onError),
        (error, delayMs) => onRestart(index, error, delayMs),
      ),
    ),
  );
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  const stop = async () => void (await Promise.all(running.map((p) => p.stop())));
  if (failed !== undefined) {
    await stop();
    throw new Error(`dns responder processes could not start: ${(failed.reason as Error).message}`, {
      cause: failed.reason,
    });
  }
  const processes: SupervisedResponder<ProcessPeer>[] = running;
  return {
    host,
    port,
    pids: () => processes.map((p) => p.current.peer.worker.process.pid!),
    get restarts() {
      return processes.reduce((sum, p) => sum + p.restarts, 0);
    },
    exportZone: () => exportFrom(processes[0]!.current.peer.requests),
    stop,
  };
}
