// Preloaded into a registry process by bench/mem-diag.ts (`--expose-gc --import`): on SIGUSR2 it
// appends one JSON line to $MEMDIAG_OUT with the process's memory before and after four full GCs
// (RSS by mapping kind included: smapsKinds).
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;

/**
 * RSS by kind of mapping, from /proc/self/smaps: glibc malloc's thread arenas (a read-write start and
 * a PROT_NONE rest, 64 MB together), the brk heap (main arena), files (the node binary, libraries),
 * and other anonymous mappings (V8's heap pages, thread stacks, large mallocs).
 */
function smapsKinds() {
  const maps = [];
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      maps.push({
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3],
        path: head[4],
        rss: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) maps.at(-1).rss = Number(rss[1]) * 1024;
  }
  const kinds = { arenas: 0, arenaCount: 0, brk: 0, files: 0, otherAnon: 0 };
  const ARENA = 64n * 1048576n;
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i];
    const next = maps[i + 1];
    if (m.path === '[heap]') kinds.brk += m.rss;
    else if (m.path.startsWith('/')) kinds.files += m.rss;
    else if (
      m.path === '' &&
      m.perms === 'rw-p' &&
      m.start % ARENA === 0n &&
      ((next && next.perms === '---p' && next.start === m.end && next.end - m.start === ARENA) ||
        m.end - m.start === ARENA)
    ) {
      kinds.arenas += m.rss;
      kinds.arenaCount++;
    } else kinds.otherAnon += m.rss;
  }
  return {
    arenas: mb(kinds.arenas),
    arenaCount: kinds.arenaCount,
    brk: mb(kinds.brk),
    files: mb(kinds.files),
    otherAnon: mb(kinds.otherAnon),
  };
}

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
    smaps: smapsKinds(),
    spaces,
  };
}

process.on('SIGUSR2', () => {
  const before = stats('before-gc');
  for (let i = 0; i < 4; i++) globalThis.gc();
  appendFileSync(process.env.MEMDIAG_OUT, `${JSON.stringify({ before, after: stats('after-gc') })}\n`);
});
