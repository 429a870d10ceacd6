import type { DnsResponderOptions } from './responder.js';
import type {
  FromResponder,
  ResponderWorkerData,
  ToResponder,
  WorkerReply,
  WorkerRequest,
} from './responder-worker.js';
import { encodedSlices } from './update-text.js';
import type { Zone } from './zone.js';
import { ZoneFeed } from './zone-feed.js';
import type { ZoneExport } from './zone-file.js';

/** Set by `pnpm build` (scripts/build.ts): the bundled worker, relative to this source file. */
declare const REACH_BUNDLED_RESPONDER: string | undefined;
/**
 * The responder worker's entry, for threads and child processes alike. From source, a boot file
 * registers tsx's loader before the TypeScript worker; a build bundles the worker.
 */
export const RESPONDER_WORKER_URL =
  typeof REACH_BUNDLED_RESPONDER === 'string'
    ? new URL(REACH_BUNDLED_RESPONDER, import.meta.url)
    : new URL('./responder-worker-boot.mjs', import.meta.url);

/** Restart delays: 100 ms, doubling up to 30 s while starting fails. */
const RESTART_FIRST_MS = 100;
const RESTART_MAX_MS = 30_000;
/** A worker that does not finish closing its sockets this long after `stop` is ended. */
const STOP_GRACE_MS = 5000;

/** A responder worker (a thread or a child process) as the registry sees it. */
export interface ResponderPeer {
  /** Sends a message; one to a worker that is gone is dropped. */
  send(message: ToResponder): void;
  onMessage(handler: (message: FromResponder) => void): void;
  /** Told if the worker cannot be started or reached. */
  onError(handler: (error: Error) => void): void;
  /** Settles once the worker is gone, with how it ended (`code 1`, `signal SIGKILL`). */
  readonly exited: Promise<string>;
  /** Ends the worker at once. */
  kill(): void;
}

/** Starts a worker and hands it its `start` message (a child process also gets the UDP socket). */
export type OpenPeer<P extends ResponderPeer> = (start: ToResponder & { kind: 'start' }) => P;

/** One running worker and the feed that keeps its replica current. */
export interface LaunchedResponder<P extends ResponderPeer = ResponderPeer> {
  peer: P;
  feed: ZoneFeed;
  host: string;
  port: number;
}

/** Requests to one worker (thread or process), each answered by the reply with its id; all fail if it ends. */
export class WorkerRequests {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(reply: WorkerReply): void; reject(e: Error): void }>();
  private ended: Error | undefined;

  constructor(private readonly peer: ResponderPeer) {
    peer.onMessage((message: FromResponder) => {
      if (!('id' in message)) return;
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.kind === 'request-failed') waiter?.reject(new Error(message.message));
      else waiter?.resolve(message);
    });
    void peer.exited.then((how) => {
      this.ended = new Error(`dns responder worker ended (${how})`);
      for (const waiter of this.waiting.values()) waiter.reject(this.ended);
      this.waiting.clear();
    });
  }

  newId(): number {
    return this.nextId++;
  }

  /** Sends `request` and resolves with its reply of kind `kind`. */
  ask<K extends WorkerReply['kind']>(request: WorkerRequest, kind: K): Promise<WorkerReply & { kind: K }> {
    if (this.ended !== undefined) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      this.waiting.set(request.id, {
        resolve: (reply) =>
          reply.kind === kind
            ? resolve(reply as WorkerReply & { kind: K })
            : reject(new Error(`dns responder worker: ${kind} expected, got ${reply.kind}`)),
        reject,
      });
      this.peer.send(request);
    });
  }

  send(request: WorkerRequest): void {
    this.peer.send(request);
  }
}

/** A zone-file export served by a worker, a piece per request. */
export async function exportFrom(requests: WorkerRequests): Promise<ZoneExport> {
  const id = requests.newId();
  const { serial } = await requests.ask({ kind: 'export', id }, 'export-ready');
  async function* chunks(): AsyncGenerator<string> {
    let done = false;
    try {
      for (;;) {
        const { text } = await requests.ask({ kind: 'export-next', id }, 'export-chunk');
        if (text === null) {
          done = true;
          return;
        }
        yield text;
      }
    } finally {
      if (!done) requests.send({ kind: 'export-end', id });
    }
  }
  return { serial, chunks: chunks() };
}

/** Starts one worker with a full copy of the zone; resolves once it answers. */
export async function launchResponder<P extends ResponderPeer>(
  zone: Zone,
  open: OpenPeer<P>,
  listen: Omit<DnsResponderOptions, 'zone' | 'onError'>,
  onError: (error: Error) => void,
): Promise<LaunchedResponder<P>> {
  let peer: P | undefined;
  // Updates are sent from a microtask or timer, so always after the worker below exists.
  // Big updates go as slices, encoded, which the worker decodes and applies one per event-loop turn.
  const feed = new ZoneFeed(zone, (update) => {
    for (const encoded of encodedSlices(update)) peer?.send({ kind: 'update', encoded });
  });
  const data: ResponderWorkerData = {
    ...listen,
    host: listen.host ?? '127.0.0.1',
    port: listen.port ?? 8053,
    settings: zone.settings,
    initial: feed.initial(),
  };
  const started = open({ kind: 'start', data });
  peer = started;
  const address = await new Promise<{ host: string; port: number }>((resolve, reject) => {
    started.onMessage((message) => {
      if (message.kind === 'listening') resolve(message);
      else if (message.kind === 'failed')
        reject(Object.assign(new Error(message.message), { code: message.code }));
      else if (message.kind === 'socket-error') onError(new Error(message.message));
    });
    started.onError((error) => {
      reject(error);
      onError(error);
    });
    void started.exited.then((how) =>
      reject(new Error(`dns responder worker ended (${how}) before it answered`)),
    );
  }).catch(async (error: unknown) => {
    feed.close();
    started.kill();
    await started.exited;
    throw error;
  });
  return { peer: started, feed, ...address };
}

/** A worker kept running: restarted whenever it ends until `stop`. */
export interface SupervisedResponder<P extends ResponderPeer> {
  /** The worker answering now (a new one after each restart). */
  readonly current: LaunchedResponder<P>;
  /** How many times the worker died and was started again. */
  readonly restarts: number;
  /** Asks the worker to close its sockets and waits until it is gone. */
  stop(): Promise<void>;
}

/**
 * Launches a worker with `launch` and starts it again whenever it ends (an uncaught error, out of
 * memory, killed), after 100 ms and then backing off up to 30 s while that fails. A failure of the
 * first launch is thrown.
 */
export async function superviseResponder<P extends ResponderPeer>(
  launch: () => Promise<LaunchedResponder<P>>,
  onRestart: (error: Error, delayMs: number) => void,
): Promise<SupervisedResponder<P>> {
  let current = await launch();
  let stopping = false;
  let restarts = 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const restart = (error: Error, delayMs: number) => {
    onRestart(error, delayMs);
    retryTimer = setTimeout(async () => {
      retryTimer = undefined;
      if (stopping) return;
      try {
        const next = await launch();
        if (stopping) {
          next.feed.close();
          next.peer.kill();
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
  const follow = (launched: LaunchedResponder<P>) => {
    void launched.peer.exited.then((how) => {
      launched.feed.close();
      if (!stopping) restart(new Error(`dns responder worker ended (${how})`), RESTART_FIRST_MS);
    });
  };
  follow(current);

  let stopped: Promise<void> | undefined;
  return {
    get current() {
      return current;
    },
    get restarts() {
      return restarts;
    },
    stop() {
      stopped ??= (async () => {
        stopping = true;
        clearTimeout(retryTimer);
        const { peer, feed } = current;
        feed.close();
        peer.send({ kind: 'stop' });
        const timer = setTimeout(() => peer.kill(), STOP_GRACE_MS);
        await peer.exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
}
