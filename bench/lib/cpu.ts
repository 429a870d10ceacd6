import { readFileSync } from 'node:fs';

/** CPU time (user + system) a process has used so far, in milliseconds, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** CPU milliseconds used by `pids` together while `work` runs. */
export async function cpuDuring<T>(
  pids: number[],
  work: () => Promise<T>,
): Promise<{ result: T; cpuMs: number }> {
  const before = pids.map(cpuMs);
  const result = await work();
  const used = pids.reduce((sum, pid, i) => sum + cpuMs(pid) - before[i]!, 0);
  return { result, cpuMs: used };
}
