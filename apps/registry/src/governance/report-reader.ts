import type { Clock } from '@agent-reach/sdk/clock';
import {
  type ConflictView,
  type DailyConflictReport,
  type GovernanceReport,
  isReachError,
  parseReportWindow,
  ReachError,
} from '@agent-reach/sdk/protocol';
import type { DeclarationLog } from '../registration/declaration-log.js';
import type { ConflictReporter } from '../routing/conflict-report.js';
import { buildGovernanceReport, daysOf, windowBounds } from './governance-report.js';
import type { RouteHistory } from './route-history.js';

/** What a governance report is read from. */
export interface ReportReaderDeps {
  history: Pick<RouteHistory, 'read'>;
  declarations: Pick<DeclarationLog, 'allHistory'>;
  /** Live instances per `<agent>/<version>` now. */
  liveVersions: () => ReadonlyMap<string, number>;
  /** `control_plane.declarations.verify_after_calls`. */
  verifyAfterCalls: number;
  conflictReports: Pick<ConflictReporter, 'read'>;
  /** The conflicts right now. */
  liveConflicts: () => ConflictView[];
  clock: Pick<Clock, 'wallNow'>;
  /** How long the route history is kept: the longest window. */
  retentionMs: number;
}

/** The governance report verb: checks the window, reads the store, builds the report. */
export class ReportReader {
  constructor(private readonly deps: ReportReaderDeps) {}

  /** The report over `window` (`1h` … the retention); VALIDATION_FAILED for a bad or too long window. */
  async report(window: string): Promise<GovernanceReport> {
    const windowMs = parseReportWindow(window);
    if (windowMs === null)
      throw new ReachError(
        'VALIDATION_FAILED',
        `window ${JSON.stringify(window)}: use <n>h or <n>d, e.g. 1h, 24h, 7d, 30d`,
        {
          data: { field: 'window' },
        },
      );
    if (windowMs > this.deps.retentionMs)
      throw new ReachError(
        'VALIDATION_FAILED',
        `window ${window} is longer than the route history's retention (${this.deps.retentionMs / 3_600_000}h)`,
        { data: { field: 'window', max_window_ms: this.deps.retentionMs } },
      );
    const nowMs = this.deps.clock.wallNow();
    const { fromMs, toMs } = windowBounds(nowMs, windowMs);
    try {
      const [buckets, history, reports] = await Promise.all([
        this.deps.history.read(fromMs, toMs),
        this.deps.declarations.allHistory(),
        Promise.all(daysOf(fromMs, toMs).map((day) => this.deps.conflictReports.read(day))),
      ]);
      return buildGovernanceReport({
        window,
        windowMs,
        nowMs,
        retentionMs: this.deps.retentionMs,
        buckets,
        history,
        liveVersions: this.deps.liveVersions(),
        verifyAfterCalls: this.deps.verifyAfterCalls,
        conflictReports: reports.filter((r): r is DailyConflictReport => r !== null),
        liveConflicts: this.deps.liveConflicts(),
      });
    } catch (cause) {
      if (isReachError(cause)) throw cause;
      throw new ReachError('STORE_UNAVAILABLE', 'the store did not answer the report’s reads; retry', {
        cause,
      });
    }
  }
}
