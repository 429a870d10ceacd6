import { type ChildProcess, fork } from 'node:child_process';
import type { Socket as UdpSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import type { DnsResponderOptions } from './responder.js';
import {
  launchResponder,
  type OpenPeer,
  RESPONDER_WORKER_URL,
  type ResponderPeer,
  type SupervisedResponder,
  superviseResponder,
} from './responder-supervisor.js';
import type { ToResponder } from './responder-worker.js';
import type { Zone } from './zone.js';

/** What the responder processes answer from and on. */
export interface DnsResponderProcessesOptions extends Pick<DnsResponderOptions, 'answerCacheEntries'> {
  zone: Zone;
  /** The bound UDP socket every process reads (the registry's responder keeps reading it too). */
  udp: UdpSocket;
  /** How many processes. */
  count: number;
  onError?: (error: Error) => void;
  /** Process `index` died (`error` says how) and is being started again after `delayMs`. */
  onRestart?: (index: number, error: Error, delayMs: number) => void;
}

/** Child processes answering UDP on the registry's socket; one that dies is started again. */
export interface DnsResponderProcesses {
  /** The process ids answering now (new ones after restarts). */
  pids(): number[];
  /** How many times a process died and was started again, over all of them. */
  readonly restarts: number;
  /** Stops every process and waits until they are gone; the registry's socket stays open. */
  stop(): Promise<void>;
}

type ProcessPeer = ResponderPeer & { child: ChildProcess };

/** A responder worker in a new child process, handed `udp` with its `start` message. */
const openProcess =
  (udp: UdpSocket): OpenPeer<ProcessPeer> =>
  (start) => {
    // Advanced serialization: zone updates carry Buffers. No execArgv: the boot file loads tsx itself.
    const child = fork(fileURLToPath(RESPONDER_WORKER_URL), [], {
      serialization: 'advanced',
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.send(start, udp);
    return {
      child,
      send: (message: ToResponder) => {
        if (child.connected) child.send(message);
      },
      onMessage: (handler) => void child.on('message', handler),
      onError: (handler) => void child.on('error', handler),
      exited: new Promise<string>((resolve) =>
        child.once('exit', (code, signal) => resolve(signal === null ? `code ${code}` : `signal ${signal}`)),
      ),
      kill: () => void child.kill('SIGKILL'),
    };
  };

/**
 * Starts `count` child processes that each hold a replica of `zone` (fed over IPC like the responder
 * thread's) and answer UDP queries read from `udp`, the registry's own socket: the kernel hands each
 * datagram to one reader, so a reader more per core lifts UDP throughput past one Node thread's
 * socket cost. TCP stays with the registry. Resolves once every process answers; throws if one
 * cannot be started (the others are stopped).
 */
export async function startDnsResponderProcesses(
  options: DnsResponderProcessesOptions,
): Promise<DnsResponderProcesses> {
  const { zone, udp, count, onError = () => {}, onRestart = () => {} } = options;
  const { address, port } = udp.address();
  const listen = { host: address, port, answerCacheEntries: options.answerCacheEntries };
  const open = openProcess(udp);
  const started = await Promise.allSettled(
    Array.from({ length: count }, (_, index) =>
      superviseResponder(
        () => launchResponder(zone, open, listen, onError),
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
    pids: () => processes.map((p) => p.current.peer.child.pid!),
    get restarts() {
      return processes.reduce((sum, p) => sum + p.restarts, 0);
    },
    stop,
  };
}
