// Preloaded into a registry process by bench/mem-diag.ts (`--expose-gc --import`): on SIGUSR2 it
// appends one JSON line to $MEMDIAG_OUT with the process's memory before and after four full GCs.
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

function stats(label) {
  const usage = process.memoryUsage();
  const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const anonymous = Number(/^Anonymous:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [
      s.space_name,
      { used: mb(s.space_used_size), phys: mb(s.physical_space_size) },
    ]),
  );
  return {
    label,
    rss: mb(usage.rss),
    heapUsed: mb(usage.heapUsed),
    heapTotal: mb(usage.heapTotal),
    external: mb(usage.external),
    anon: mb(anonymous),
    spaces,
  };
}

process.on('SIGUSR2', () => {
  const before = stats('before-gc');
  for (let i = 0; i < 4; i++) globalThis.gc();
  appendFileSync(process.env.MEMDIAG_OUT, `${JSON.stringify({ before, after: stats('after-gc') })}\n`);
});
