import type { OutcomeReport } from '@agent-reach/sdk/client';
import type { AttemptReport } from './ports.js';

/** An attempt as the registry takes it (`POST /v1/outcomes`), shaped as ReachClient reports its own. */
export function outcomeReport(report: AttemptReport): OutcomeReport {
  const { outcome } = report;
  return {
    instance_id: report.target.instance,
    request_id: report.requestId,
    operation: report.capability,
    ok: outcome.ok,
    ...(outcome.ok ? {} : { failure: outcome.failure }),
    latency_ms: Math.max(0, outcome.ms),
    attempt: report.attempt,
    fallback: report.attempt > 1,
    final: report.final,
  };
}
