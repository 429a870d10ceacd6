import type { VerifyReport } from './verify.js';

/**
 * The seed's measured table, one proposition per block with our figures beside the seed's, then the
 * failures by name (cells stay whole: the figures are the point).
 */
export function formatVerify(report: VerifyReport): string {
  const lines: string[] = [];
  for (const v of report.verdicts) {
    lines.push(`${v.id}  ${v.ok ? 'pass' : 'FAIL'}  ${v.title}`);
    lines.push(`    ours: ${v.ours}`);
    lines.push(`    seed: ${v.seed}`);
    if (!v.ok) lines.push(`    why:  ${v.why}`);
  }
  const failed = report.verdicts.filter((v) => !v.ok);
  lines.push('');
  lines.push(
    failed.length === 0
      ? `all ${report.verdicts.length} propositions hold`
      : `failed: ${failed.map((v) => v.id).join(', ')}`,
  );
  lines.push(
    report.kept
      ? `kept the verification traces: ${report.traces.join(' ')}`
      : `deleted the ${report.traces.length} verification traces`,
  );
  return lines.join('\n');
}
