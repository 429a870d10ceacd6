import type { Clock } from '@agent-reach/sdk/clock';
import type { Logger } from 'pino';
import type { RegistryConfig } from '../config.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistryStore } from '../store/store.js';
import type { InstanceProber, ProbeVerdict } from './instance-prober.js';
import type { LivenessEntry, LivenessTable } from './liveness-table.js';

/** Storm protection's phase: idle, holding silent instances, or evicting the held ones at a capped rate. */
export type StormPhase = 'idle' | 'holding' | 'evicting';

/** What the guard needs; all of it is injected so tests can move time. */
export interface StormGuardDeps {
  table: LivenessTable;
  store: RegistryStore;
  clock: Clock;
  metrics: RegistryMetrics;
  logger: Logger;
  config: Pick<RegistryConfig, 'heartbeatIntervalMs' | 'heartbeatTimeoutMs' | 'leaseRefreshMs' | 'storm'>;
  /** Verifies silent instances before they are held; without one every silent instance is held. */
  prober?: InstanceProber;
}

/** Probes of held instances at a time. */
const PROBE_CONCURRENCY = 64;
/** Lease revocations (or keep-alives of held leases) in flight at a time. */
const STORE_CONCURRENCY = 256;

/**
 * The leader's liveness deadlines. An instance silent for `heartbeatTimeoutMs` (by the liveness table:
 * this replica's heartbeats and the others' shared facts) is evicted: its lease revoked, every record
 * gone at once. Its lease lasts longer (`leaseTtlMs`, a dead-man switch for a registry that is gone).
 *
 * When a large share of instances goes silent within one interval, the fault is probably ours: hold
 * their records (no deadline, and their leases kept alive for them) for at most `storm.hold`, then
 * evict the ones that stay silent at no more than `storm.max_evictions_per_interval` per interval.
 */
export class StormGuard {
  private phaseNow: StormPhase = 'idle';
  private readonly held = new Map<string, LivenessEntry>();
  private startedAt = 0;
  private lastTickAt: number | undefined;
  // Entries whose lease this leader revoked: skipped until the watch removes them from the table.
  private readonly revoked = new Set<LivenessEntry>();
  private lastEvictionAt = Number.NEGATIVE_INFINITY;
  // When each held instance was last probed (monotonic ms); unknown ones are probed again each interval.
  private readonly probedAt = new Map<string, number>();
  // Held instances that heartbeat again during this storm (gone or evicted ones are not counted).
  private returnedCount = 0;

  constructor(private readonly deps: StormGuardDeps) {}

  get phase(): StormPhase {
    return this.phaseNow;
  }

  /** Instance ids held on their behalf right now. */
  heldIds(): string[] {
    return [...this.held.keys()];
  }

  /** One sweep: detect a storm, keep held leases alive, evict past the deadline or at the capped rate. Leader only. */
  async tick(): Promise<void> {
    const { clock, config } = this.deps;
    const now = clock.now();
    const interval = config.heartbeatIntervalMs;
    // A late tick means this process stalled: silences that began during the stall count as one window.
    const windowStart = Math.min(now - interval, this.lastTickAt ?? now - interval);
    this.lastTickAt = now;
    this.dropReturned(now);
    if (this.phaseNow === 'idle') {
      this.detect(now, windowStart);
    } else {
      for (const entry of this.silent(now, Number.NEGATIVE_INFINITY)) {
        if (this.phaseNow === 'holding') this.held.set(entry.instanceId, entry);
      }
    }
    // Not held (no storm, or fallen silent after the hold began): the deadline decides.
    await this.evictOverdue(now);
    // Leases first: a held lease this replica has not refreshed lately is refreshed before the probe,
    // which may take its whole timeout. Keeping the lease of an instance the probe then proves dead
    // costs one keep-alive; it is revoked right after.
    if (this.held.size > 0) await this.keepHeld(now);
    // Storm protection verifies before it holds: whatever is provably dead goes at once.
    if (this.phaseNow !== 'idle') await this.verifyHeld(now);
    if (this.phaseNow === 'holding') this.maybeEndHold(now);
    if (this.phaseNow === 'evicting') await this.evict(now);
    // Held instances proved dead are no end of the storm: it ends when heartbeats return or the hold is over.
    if (
      this.phaseNow !== 'idle' &&
      this.held.size === 0 &&
      (this.phaseNow === 'evicting' || this.returnedCount > 0)
    )
      this.finish('every held instance returned or was evicted');
    this.deps.metrics.stormHeld.set(this.held.size);
  }

  /** Probes the held instances not probed within the last interval; evicts the dead ones at once. */
  private async verifyHeld(now: number): Promise<void> {
    const { prober, store, metrics, logger, config } = this.deps;
    if (!prober) return;
    for (const id of this.probedAt.keys()) if (!this.held.has(id)) this.probedAt.delete(id);
    const due = [...this.held.values()].filter(
      (entry) =>
        now - (this.probedAt.get(entry.instanceId) ?? Number.NEGATIVE_INFINITY) >= config.heartbeatIntervalMs,
    );
    if (due.length === 0) return;
    const verdicts = new Map<LivenessEntry, ProbeVerdict>();
    for (let i = 0; i < due.length; i += PROBE_CONCURRENCY) {
      const batch = due.slice(i, i + PROBE_CONCURRENCY);
      const answers = await Promise.all(batch.map((entry) => prober.probe(entry.record)));
      for (const [index, entry] of batch.entries()) verdicts.set(entry, answers[index]!);
    }
    const dead: LivenessEntry[] = [];
    for (const [entry, verdict] of verdicts) {
      this.probedAt.set(entry.instanceId, now);
      metrics.stormProbes.inc({ verdict });
      // It may have returned (or gone) while the probe ran.
      if (verdict === 'dead' && this.held.get(entry.instanceId) === entry) dead.push(entry);
    }
    if (dead.length === 0) return;
    for (const entry of dead) {
      this.held.delete(entry.instanceId);
      this.probedAt.delete(entry.instanceId);
    }
    await Promise.all(dead.map((entry) => store.revokeLease(entry.leaseId)));
    metrics.evictions.inc(dead.length);
    logger.warn(
      { event: 'storm_probe_evicted', evicted: dead.map((entry) => entry.instanceId), held: this.held.size },
      'storm protection: silent instances proved dead (connection refused or another instance answering); evicted at once',
    );
  }

  /**
   * Evicts every instance silent for `heartbeatTimeoutMs` that no storm holds: its lease is revoked,
   * and the watch removes its records and its table entry on every replica.
   */
  private async evictOverdue(now: number): Promise<void> {
    const { table, store, metrics, logger, config } = this.deps;
    for (const entry of this.revoked) if (table.get(entry.instanceId) !== entry) this.revoked.delete(entry);
    const overdue: LivenessEntry[] = [];
    for (const entry of table.values()) {
      if (now - entry.lastBeatMono < config.heartbeatTimeoutMs || entry.deregistering) continue;
      if (this.held.has(entry.instanceId) || this.revoked.has(entry)) continue;
      overdue.push(entry);
    }
    if (overdue.length === 0) return;
    let failed: unknown;
    let evicted = 0;
    for (let i = 0; i < overdue.length; i += STORE_CONCURRENCY) {
      const batch = overdue.slice(i, i + STORE_CONCURRENCY);
      const results = await Promise.allSettled(batch.map((entry) => store.revokeLease(entry.leaseId)));
      results.forEach((result, index) => {
        // A revoke the store did not take is tried again next sweep.
        if (result.status === 'rejected') failed = result.reason;
        else {
          this.revoked.add(batch[index]!);
          evicted += 1;
        }
      });
    }
    metrics.evictions.inc(evicted);
    if (evicted > 0)
      logger.info(
        { event: 'evicted_silent', evicted, first: overdue.slice(0, 10).map((entry) => entry.instanceId) },
        'silent past heartbeat_timeout: leases revoked',
      );
    if (failed !== undefined)
      logger.warn(
        { err: failed, failures: overdue.length - evicted },
        'the store did not take evictions; retrying',
      );
  }

  /** Forgets every hold (leadership lost: the new leader decides). */
  reset(): void {
    this.probedAt.clear();
    this.revoked.clear();
    if (this.phaseNow !== 'idle')
      this.deps.logger.warn({ held: this.held.size }, 'storm protection handed over');
    this.held.clear();
    this.phaseNow = 'idle';
    this.lastTickAt = undefined;
    this.deps.metrics.stormActive.set(0);
    this.deps.metrics.stormHeld.set(0);
  }

  private silent(now: number, since: number): LivenessEntry[] {
    const after = this.deps.table.suspectAfterMs;
    const found: LivenessEntry[] = [];
    for (const entry of this.deps.table.values()) {
      const silentAt = entry.lastBeatMono + after;
      if (silentAt <= now && silentAt > since && !entry.deregistering) found.push(entry);
    }
    return found;
  }

  private detect(now: number, windowStart: number): void {
    const { table, config, metrics, logger } = this.deps;
    const total = table.size;
    if (total < config.storm.minInstances) return;
    const newlySilent = this.silent(now, windowStart);
    if (newlySilent.length < config.storm.threshold * total) return;
    this.phaseNow = 'holding';
    this.startedAt = now;
    this.returnedCount = 0;
    for (const entry of this.silent(now, Number.NEGATIVE_INFINITY)) this.held.set(entry.instanceId, entry);
    metrics.stormEvents.inc();
    metrics.stormActive.set(1);
    logger.warn(
      {
        event: 'storm_started',
        silent: newlySilent.length,
        held: this.held.size,
        total,
        share: Number((newlySilent.length / total).toFixed(3)),
        hold_ms: config.storm.holdMs,
      },
      'storm protection: many instances went silent at once; holding their records',
    );
  }

  private dropReturned(now: number): void {
    const after = this.deps.table.suspectAfterMs;
    for (const [id, entry] of this.held) {
      const gone = this.deps.table.get(id) !== entry;
      const returned = !gone && now - entry.lastBeatMono <= after;
      if (returned) this.returnedCount += 1;
      if (gone || returned) this.held.delete(id);
    }
  }

  private maybeEndHold(now: number): void {
    const { config, logger, table } = this.deps;
    // Instances proved dead leave the hold without heartbeats returning: only returns end it early.
    const returned = this.returnedCount > 0 && this.held.size < config.storm.threshold * table.size;
    const expired = now - this.startedAt >= config.storm.holdMs;
    if (!returned && !expired) return;
    this.phaseNow = 'evicting';
    logger.warn(
      { event: returned ? 'storm_heartbeats_returned' : 'storm_hold_expired', still_silent: this.held.size },
      returned
        ? 'storm protection: heartbeats returned; evicting the instances still silent at a capped rate'
        : 'storm protection: hold expired; evicting silent instances at a capped rate',
    );
  }

  private async evict(now: number): Promise<void> {
    const { config, store, metrics, logger } = this.deps;
    if (now - this.lastEvictionAt < config.heartbeatIntervalMs) return;
    this.lastEvictionAt = now;
    // An instance still inside its own heartbeat_timeout is released, not evicted: its deadline decides.
    for (const entry of [...this.held.values()]) {
      if (now - entry.lastBeatMono < config.heartbeatTimeoutMs) this.held.delete(entry.instanceId);
    }
    const batch = [...this.held.values()].slice(0, config.storm.maxEvictionsPerInterval);
    for (const entry of batch) this.held.delete(entry.instanceId);
    if (batch.length === 0) return;
    await Promise.all(batch.map((entry) => store.revokeLease(entry.leaseId)));
    metrics.evictions.inc(batch.length);
    logger.warn(
      { event: 'storm_evicted', evicted: batch.map((entry) => entry.instanceId), remaining: this.held.size },
      'storm protection: evicted silent instances',
    );
  }

  /**
   * Keeps each held lease alive when this replica's last refresh of it is older than `leaseRefreshMs`
   * (at once for one it never refreshed), so it outlives the hold however long the hold is.
   */
  private async keepHeld(now: number): Promise<void> {
    const { store, config, logger, metrics } = this.deps;
    const due = [...this.held.values()].filter((entry) => now - entry.leaseKeptMono >= config.leaseRefreshMs);
    let failed: unknown;
    let failures = 0;
    for (let i = 0; i < due.length; i += STORE_CONCURRENCY) {
      const batch = due.slice(i, i + STORE_CONCURRENCY);
      metrics.countKeepAlive('storm_hold', batch.length);
      const results = await Promise.allSettled(batch.map((entry) => store.keepAlive(entry.leaseId)));
      results.forEach((result, index) => {
        const entry = batch[index]!;
        if (result.status === 'rejected') {
          // The store did not answer: still held, tried again next tick.
          failed = result.reason;
          failures += 1;
        } else if (!result.value.ok) {
          this.held.delete(entry.instanceId);
        } else if (now > entry.leaseKeptMono) {
          entry.leaseKeptMono = now;
        }
      });
    }
    if (failures > 0)
      logger.warn(
        { err: failed, failures },
        'storm protection: the store did not take held keep-alives; retrying',
      );
  }

  private finish(reason: string): void {
    this.phaseNow = 'idle';
    this.deps.metrics.stormActive.set(0);
    this.deps.logger.info({ event: 'storm_ended', reason }, 'storm protection ended');
  }
}
