import { Worker } from 'node:worker_threads';
import type { DnsResponder, DnsResponderOptions } from './responder.js';
import type { FromResponder, ResponderWorkerData, ToResponder } from './responder-worker.js';
import type { Zone } from './zone.js';
import { ZoneFeed } from './zone-feed.js';

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
}

/** Set by `pnpm build` (scripts/build.ts): the bundled worker, relative to this source file. */
declare const REACH_BUNDLED_RESPONDER: string | undefined;
// From source, a boot file registers tsx's loader before the TypeScript worker; a build bundles the worker.
const WORKER_URL =
  typeof REACH_BUNDLED_RESPONDER === 'string'
    ? new URL(REACH_BUNDLED_RESPONDER, import.meta.url)
    : new URL('./responder-worker-boot.mjs', import.meta.url);
/** Restart delays: 100 ms, doubling up to 30 s while starting fails. */
const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 30_000;

/** One running thread: its worker, the feed that keeps its replica current, and its exit. */
interface Launched {
  worker: Worker;
  feed: ZoneFeed;
  exited: Promise<number>;
  host: string;
  port: number;
}

/** Starts one responder thread with a full copy of the zone; resolves once both sockets listen. */
async function launch(
  zone: Zone,
  listen: Omit<DnsResponderOptions, 'zone' | 'onError'>,
  onError: (error: Error) => void,
): Promise<Launched> {
  let worker: Worker | undefined;
  // Updates are sent from a microtask, so always after the worker below exists.
  const feed = new ZoneFeed(zone, (update) =>
    worker?.postMessage({ kind: 'update', update } satisfies ToResponder),
  );
  const workerData: ResponderWorkerData = {
    ...listen,
    host: listen.host ?? '127.0.0.1',
    port: listen.port ?? 8053,
    settings: zone.settings,
    initial: feed.initial(),
  };
  const thread = new Worker(WORKER_URL, { workerData });
  worker = thread;
  const exited = new Promise<number>((resolve) => thread.once('exit', resolve));

  const started = await new Promise<{ host: string; port: number }>((resolve, reject) => {
    thread.on('message', (message: FromResponder) => {
      if (message.kind === 'listening') resolve(message);
      else if (message.kind === 'failed')
        reject(Object.assign(new Error(message.message), { code: message.code }));
      else if (message.kind === 'socket-error') onError(new Error(message.message));
    });
    thread.on('error', (error) => {
      reject(error);
      onError(error);
    });
    void exited.then(() => reject(new Error('dns responder thread exited before it listened')));
  }).catch(async (error: unknown) => {
    feed.close();
    await thread.terminate();
    throw error;
  });
  return { worker: thread, feed, exited, host: started.host, port: started.port };
}

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
  let current = await launch(zone, listen, onError);
  // A restart binds the address the first thread got (port 0 is resolved by then).
  const address = { ...listen, host: current.host, port: current.port };
  let stopping = false;
  let restarts = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const restart = (error: Error, delayMs: number) => {
    onRestart(error, delayMs);
    retryTimer = setTimeout(async () => {
      retryTimer = undefined;
      if (stopping) return;
      try {
        const next = await launch(zone, address, onError);
        if (stopping) {
          next.feed.close();
          await next.worker.terminate();
          return;
        }
        current = next;
        restarts++;
        follow(next);
      } catch (failed) {
        restart(failed as Error, Math.min(RESTART_MAX_MS, delayMs * 2));
      }
    }, delayMs);
  };
  const follow = (launched: Launched) => {
    void launched.exited.then((code) => {
      launched.feed.close();
      if (!stopping) restart(new Error(`dns responder thread exited with code ${code}`), RESTART_FIRST_MS);
    });
  };
  follow(current);

  let stopped: Promise<void> | undefined;
  return {
    host: current.host,
    port: current.port,
    get worker() {
      return current.worker;
    },
    get restarts() {
      return restarts;
    },
    stop() {
      stopped ??= (async () => {
        stopping = true;
        clearTimeout(retryTimer);
        const { worker, feed, exited } = current;
        feed.close();
        worker.postMessage({ kind: 'stop' } satisfies ToResponder);
        // A thread that does not finish closing its sockets in time is ended.
        const timer = setTimeout(() => void worker.terminate(), 5000);
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
}
