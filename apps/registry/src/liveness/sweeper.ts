import type { Clock } from '@agent-reach/sdk/clock';
import type { Logger } from 'pino';
import { KEYS } from '../store/keys.js';
import type { Leadership, RegistryStore } from '../store/store.js';
import type { LivenessTable } from './liveness-table.js';
import type { StormGuard } from './storm-guard.js';

/** Runs storm protection on a timer, on the elected leader only. */
export class Sweeper {
  private leadership: Leadership | null = null;
  private cancelTimer: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: {
      store: RegistryStore;
      clock: Clock;
      guard: StormGuard;
      table: Pick<LivenessTable, 'countSilenceFrom'>;
      logger: Logger;
      replicaId: string;
      /** How often to sweep; a fifth of the heartbeat interval catches silences well before leases expire. */
      tickMs: number;
    },
  ) {}

  get isLeader(): boolean {
    return this.leadership?.isLeader ?? false;
  }

  /** Joins the leader election and starts the timer. */
  async start(): Promise<void> {
    const { store, clock, logger, replicaId, guard, table, tickMs } = this.deps;
    this.leadership = await store.campaign(KEYS.leaderElection, replicaId);
    this.unsubscribe = this.leadership.onChange((leader) => {
      logger.info(
        { replica: replicaId, leader },
        leader ? 'became the registry leader' : 'lost registry leadership',
      );
      // A new leader judges silence from its takeover on, once the other replicas' facts have reached it.
      if (leader) table.countSilenceFrom(clock.now());
      else guard.reset();
    });
    if (this.leadership.isLeader) logger.info({ replica: replicaId }, 'registry leader from the start');
    this.cancelTimer = clock.every(tickMs, () => void this.tick());
  }

  /** One sweep now (if leader); overlapping calls share the sweep in progress. */
  tick(): Promise<void> {
    if (!this.isLeader) return Promise.resolve();
    this.running ??= this.deps.guard
      .tick()
      .catch((cause: unknown) => this.deps.logger.error({ err: cause }, 'sweep failed'))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Stops the timer, waits for a running sweep and resigns leadership. */
  async stop(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.unsubscribe?.();
    await this.running;
    await this.leadership?.resign();
    this.leadership = null;
  }
}
