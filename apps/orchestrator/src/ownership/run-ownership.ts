import type { ClaimedRun, TraceStore } from '../traces/index.js';

/** How an orchestrator holds its runs and takes over the runs of others. */
export interface RunOwnershipOptions {
  owner: string;
  /** A lease lasts this long past its last renewal. @default 5000 */
  leaseTtlMs: number;
  /** How often leases are renewed; a third of the TTL leaves two renewals' slack. @default leaseTtlMs / 3 */
  renewEveryMs?: number;
  /** How often expired leases are looked for (bounds takeover after a handover). @default 1000 */
  scanEveryMs: number;
  /** Most runs taken over per scan. @default 8 */
  claimLimit?: number;
  /** Monotonic milliseconds. @default performance.now */
  now?: () => number;
  onError?: (error: unknown, step: 'renew' | 'claim' | 'resume') => void;
}

/** What the ownership loop drives: the orchestrator's runs. */
export interface OwnedRuns {
  /** Ids of the runs going on in this process. */
  active(): string[];
  /** Goes on with a run just taken over. */
  resume(claim: ClaimedRun): Promise<unknown>;
  /** Runs another orchestrator took over: stop them here without writing. */
  lost(ids: readonly string[]): Promise<void>;
}

/**
 * The ownership loop (ARCHITECTURE §8): renews this orchestrator's leases, and takes over running
 * runs whose lease passed — their owner died (takeover within TTL + one scan) or handed them over
 * (within one scan). A run missing from a renewal was taken over by someone else and stops here;
 * when renewals fail for a whole TTL every local run stops, since others may take them over.
 */
export class RunOwnership {
  private renewTimer: NodeJS.Timeout | null = null;
  private scanTimer: NodeJS.Timeout | null = null;
  private lastRenewed: number;
  private renewing: Promise<void> = Promise.resolve();
  private scanning: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<TraceStore, 'renewLeases' | 'claimExpiredRuns'>,
    private readonly runs: OwnedRuns,
    private readonly options: RunOwnershipOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.lastRenewed = this.now();
  }

  /** Starts renewing and scanning; the first scan (runs left by a previous process) runs at once. */
  start(): Promise<void> {
    const renewEvery = this.options.renewEveryMs ?? Math.max(50, Math.floor(this.options.leaseTtlMs / 3));
    this.renewTimer = setInterval(() => void this.renew(), renewEvery);
    this.scanTimer = setInterval(() => void this.scan(), this.options.scanEveryMs);
    this.renewTimer.unref();
    this.scanTimer.unref();
    return this.scan();
  }

  /** Stops both timers and waits for a renewal or scan under way. */
  async stop(): Promise<void> {
    if (this.renewTimer !== null) clearInterval(this.renewTimer);
    if (this.scanTimer !== null) clearInterval(this.scanTimer);
    this.renewTimer = this.scanTimer = null;
    await Promise.allSettled([this.renewing, this.scanning]);
  }

  /** One renewal: every local run that is not among the renewed ones was taken over. */
  renew(): Promise<void> {
    this.renewing = this.renewing.then(async () => {
      // Taken before the update: a run started meanwhile is not mistaken for a lost one.
      const local = this.runs.active();
      const started = this.now();
      try {
        const held = new Set(
          await this.store.renewLeases(this.options.owner, local, this.options.leaseTtlMs),
        );
        this.lastRenewed = started;
        const lost = local.filter((id) => !held.has(id) && this.runs.active().includes(id));
        if (lost.length > 0) await this.runs.lost(lost);
      } catch (error) {
        this.options.onError?.(error, 'renew');
        if (this.now() - this.lastRenewed > this.options.leaseTtlMs) await this.runs.lost(this.runs.active());
      }
    });
    return this.renewing;
  }

  /** One scan: takes over expired runs and resumes each (never one already going on here). */
  scan(): Promise<void> {
    this.scanning = this.scanning.then(async () => {
      let claims: ClaimedRun[];
      try {
        claims = await this.store.claimExpiredRuns(
          this.options.owner,
          this.options.leaseTtlMs,
          this.options.claimLimit ?? 8,
        );
      } catch (error) {
        this.options.onError?.(error, 'claim');
        return;
      }
      const local = new Set(this.runs.active());
      for (const claim of claims) {
        if (local.has(claim.id)) continue;
        await this.runs.resume(claim).catch((error) => this.options.onError?.(error, 'resume'));
      }
    });
    return this.scanning;
  }
}
