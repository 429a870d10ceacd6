import type { Clock } from '@agent-reach/sdk/clock';
import { type ConflictView, DailyConflictReport } from '@agent-reach/sdk/protocol';
import type { RegistryStore } from '../store/store.js';
import { type ConflictBook, toConflictView } from './conflicts.js';

/** Where the daily conflict reports live in the store (durable, not bound to a lease). */
export const CONFLICT_REPORTS_PREFIX = '/reach/reports/conflicts/';

/** The store key of the report for one UTC day (`yyyy-mm-dd`). */
export const conflictReportKey = (date: string) => `${CONFLICT_REPORTS_PREFIX}${date}`;

/** The UTC date (`yyyy-mm-dd`) of a wall-clock time. */
export const utcDate = (wallMs: number) => new Date(wallMs).toISOString().slice(0, 10);

/** What tells one conflict from another across reports: domain, capability, priority and agents. */
export const conflictViewKey = (view: ConflictView) =>
  `${view.domain}|${view.capability}|${view.priority}|${view.agents.join(',')}`;

/**
 * Keeps the daily conflict report (seed article 5.2) in the store: the leader merges the live conflicts
 * into today's report on every tick, so the report lists every conflict seen during the UTC day,
 * survives restarts and leader changes, and every replica can serve it.
 */
export class ConflictReporter {
  constructor(
    private readonly deps: {
      book: ConflictBook;
      store: Pick<RegistryStore, 'get' | 'commit'>;
      clock: Pick<Clock, 'wallNow' | 'every'>;
      /** Only the leader writes. */
      isLeader: () => boolean;
    },
  ) {}

  /** Merges the live conflicts into today's report; returns true when it wrote a change. */
  async update(): Promise<boolean> {
    if (!this.deps.isLeader()) return false;
    const now = this.deps.clock.wallNow();
    const date = utcDate(now);
    const stored = await this.read(date);
    const merged = new Map<string, ConflictView>(
      (stored?.conflicts ?? []).map((view) => [conflictViewKey(view), view]),
    );
    let changed = stored === null;
    for (const entry of this.deps.book.list()) {
      const view = toConflictView(entry);
      const key = conflictViewKey(view);
      if (merged.has(key)) continue;
      merged.set(key, view);
      changed = true;
    }
    if (!changed) return false;
    const report: DailyConflictReport = {
      date,
      generated_at: new Date(now).toISOString(),
      conflicts: [...merged.values()].sort((a, b) => a.since.localeCompare(b.since)),
    };
    const result = await this.deps.store.commit({
      puts: [{ key: conflictReportKey(date), value: JSON.stringify(report) }],
    });
    return result.ok;
  }

  /** The report of one UTC day, or null when none was written. A corrupt stored value reads as null. */
  async read(date: string): Promise<DailyConflictReport | null> {
    const raw = await this.deps.store.get(conflictReportKey(date));
    if (raw === null) return null;
    try {
      const parsed = DailyConflictReport.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Today's date as the report names it. */
  today(): string {
    return utcDate(this.deps.clock.wallNow());
  }

  /** Updates the report every `intervalMs` (and at once when conflicts change); returns a stop function. */
  start(intervalMs = 60_000, onError: (error: unknown) => void = () => {}): () => void {
    // Runs one update at a time, so a timer tick and a change never interleave their read-merge-write.
    let chain: Promise<unknown> = Promise.resolve();
    const run = () => {
      chain = chain.then(() => this.update()).catch(onError);
    };
    const stopTimer = this.deps.clock.every(intervalMs, run);
    const stopListening = this.deps.book.subscribe(run);
    run();
    return () => {
      stopTimer();
      stopListening();
    };
  }
}
