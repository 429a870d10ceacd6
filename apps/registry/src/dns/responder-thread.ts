import { Worker } from 'node:worker_threads';
import type { DnsResponder, DnsResponderOptions } from './responder.js';
import type { FromResponder, ResponderWorkerData, ToResponder } from './responder-worker.js';
import type { Zone } from './zone.js';
import { ZoneFeed } from './zone-feed.js';

/** Where and how the responder thread listens; the zone is followed from this thread. */
export interface DnsResponderThreadOptions extends Omit<DnsResponderOptions, 'zone'> {
  zone: Zone;
}

const WORKER_URL = new URL('./responder-worker-boot.mjs', import.meta.url);

/**
 * Starts the authoritative responder on a worker thread of its own, which owns the UDP and TCP
 * sockets and a replica of `zone` fed with its changes: GC pauses and work on this thread's event
 * loop (HTTP, sweeps, journal writes) never delay an answer. Resolves once both sockets listen.
 */
export async function startDnsResponderThread(options: DnsResponderThreadOptions): Promise<DnsResponder> {
  const { zone, onError = () => {}, ...listen } = options;
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
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));

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

  let stopped: Promise<void> | undefined;
  return {
    host: started.host,
    port: started.port,
    stop() {
      stopped ??= (async () => {
        feed.close();
        thread.postMessage({ kind: 'stop' } satisfies ToResponder);
        // A thread that does not finish closing its sockets in time is ended.
        const timer = setTimeout(() => void thread.terminate(), 5000);
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
}
