import { Worker } from 'node:worker_threads';
import type { RegisterResponse } from '../protocol/index.js';
import type { LoadGauge } from './load-gauge.js';
import type { Logger } from './logger.js';

/** What the heartbeat worker reports back about one heartbeat. */
export type HeartbeatEvent =
  | { type: 'beat'; instanceId: string; seq: number; state: string | null }
  | { type: 'lease_lost'; instanceId: string; seq: number; status: number; code: string; message: string }
  | { type: 'stale'; instanceId: string; seq: number; status: number; code: string; message: string }
  | { type: 'rejected'; instanceId: string; seq: number; status: number; code: string; message: string }
  | { type: 'unreachable'; instanceId: string; seq: number; message: string };

/** What the loop is built from. */
export interface HeartbeatLoopDeps {
  controlPlaneUrl: string;
  gauge: LoadGauge;
  logger: Logger;
  /** Every heartbeat outcome of the current registration, on the main thread. */
  onEvent: (event: HeartbeatEvent) => void;
}

const WORKER_URL = new URL('./heartbeat-worker.mjs', import.meta.url);
/** Pause before replacing a worker that died, so a crash loop cannot spin. */
const RESPAWN_DELAY_MS = 500;

/**
 * The main thread's side of the heartbeat worker: hands it the current lease and turns its reports
 * into events; the worker reads load figures from shared memory and never waits for this thread.
 */
export class HeartbeatLoop {
  private worker: Worker | null = null;
  private generation = 0;
  private lease: { instanceId: string; leaseToken: string; intervalMs: number } | null = null;
  private stopped = false;
  private unreachableStreak = 0;

  constructor(private readonly deps: HeartbeatLoopDeps) {}

  /** Starts the worker thread ahead of the first registration, so the first heartbeat is on time. */
  prepare(): void {
    if (!this.stopped && !this.worker) this.spawn();
  }

  /** Starts heartbeating a new registration, seq from 1. */
  follow(registration: RegisterResponse): void {
    this.lease = {
      instanceId: registration.instance_id,
      leaseToken: registration.lease_token,
      intervalMs: registration.heartbeat_interval_ms,
    };
    this.generation += 1;
    this.unreachableStreak = 0;
    this.post(true);
  }

  /** Stops heartbeating until the next `follow` (e.g. while re-registering). */
  pause(): void {
    this.lease = null;
    this.generation += 1;
    this.worker?.postMessage({ type: 'pause' });
  }

  /** Ends the worker thread. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.lease = null;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private post(fresh: boolean): void {
    if (this.stopped || !this.lease) return;
    const worker = this.worker ?? this.spawn();
    worker.postMessage({ type: 'lease', generation: this.generation, fresh, ...this.lease });
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL, {
      workerData: { baseUrl: this.deps.controlPlaneUrl, buffer: this.deps.gauge.buffer },
      // The worker is plain JavaScript: inheriting a TypeScript loader (tsx) only slows its start by seconds.
      execArgv: [],
    });
    worker.unref();
    worker.on('message', (message: HeartbeatEvent & { generation: number }) => {
      if (message.generation === this.generation) this.handle(message);
    });
    worker.on('error', (error) => this.deps.logger.error('heartbeat worker failed', { error }));
    worker.on('exit', (code) => {
      if (this.stopped || this.worker !== worker) return;
      this.worker = null;
      this.deps.logger.error('heartbeat worker exited; starting a new one', { exit_code: code });
      // The seq lives in shared memory, so the new worker carries on with the same registration.
      setTimeout(() => this.post(false), RESPAWN_DELAY_MS).unref();
    });
    this.worker = worker;
    return worker;
  }

  private handle(event: HeartbeatEvent): void {
    const { logger } = this.deps;
    if (event.type === 'unreachable') {
      this.unreachableStreak += 1;
      if (this.unreachableStreak === 1 || this.unreachableStreak % 10 === 0) {
        logger.warn('registry unreachable for heartbeat; will keep trying', {
          ...event,
          failures: this.unreachableStreak,
        });
      }
    } else {
      if (this.unreachableStreak > 0)
        logger.info('registry reachable again', { failures: this.unreachableStreak });
      this.unreachableStreak = 0;
    }
    if (event.type === 'stale') logger.warn('registry answered a heartbeat as stale', { ...event });
    if (event.type === 'rejected') logger.error('registry rejected a heartbeat', { ...event });
    if (event.type === 'lease_lost')
      logger.warn('registry no longer knows this instance; re-registering', { ...event });
    this.deps.onEvent(event);
  }
}
