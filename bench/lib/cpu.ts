import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces); index 0 is field 3. */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time (user + system) a process has used so far, in milliseconds, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  const fields = statFields(pid);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** CPU milliseconds used so far by this process's children that have exited and been waited for. */
export function exitedChildrenCpuMs(): number {
  const fields = statFields('self');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

/** CPU (ms per second, all processes summed) below which processes count as settled after a burst of work. */
export const SETTLED_CPU_MS_PER_S = 150;
/** Longest wait for them to settle. */
const SETTLE_MAX_MS = 30_000;

/**
 * Waits until `pids` have digested a burst of work (a fill, a churn run): their CPU over one second
 * falls below SETTLED_CPU_MS_PER_S (the registry's journal writes, the leader's weight passes over new
 * or departed instances, the collection of the burst's garbage; on etcd, etcd's own), at most
 * SETTLE_MAX_MS. Returns the seconds waited. Without it the heartbeats at 100,000 were timed while the
 * registry still digested a fill 100 times the size of 1,000's: CPU per heartbeat 45 / 73 / 91 µs at
 * 1k / 10k / 100k in the registry suite right after the fill, against 61 / 69 µs at 1k / 100k in
 * `register-ab.ts` (which idles 5 s after its fill).
 */
export async function settle(pids: number[]): Promise<number> {
  const started = performance.now();
  const used = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  for (;;) {
    const before = used();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const waited = performance.now() - started;
    if (used() - before < SETTLED_CPU_MS_PER_S || waited >= SETTLE_MAX_MS) return waited / 1000;
  }
}

/** How long a thread (the main thread: `tid` = `pid`) has run on a CPU and waited in a run queue for one, in ms. */
export function threadSched(pid: number, tid = pid): { runMs: number; waitMs: number } {
  const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
  return { runMs: run! / 1e6, waitMs: wait! / 1e6 };
}

/** The thread of `pid` named `name` (`/proc/<pid>/task/<tid>/comm`, e.g. the registry's `reach-dns`), if any. */
export function threadNamed(pid: number, name: string): number | undefined {
  for (const tid of readdirSync(`/proc/${pid}/task`))
    if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === name) return Number(tid);
  return undefined;
}

/** CPU time (all cores, user + system + interrupts) the machine has been busy so far, in ms, from /proc/stat. */
export function machineBusyMs(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
  const busy = ticks.slice(0, 8).reduce((sum, t, i) => (i === 3 || i === 4 ? sum : sum + t), 0);
  return (busy * 1000) / 100;
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

/** CPU used during a span, each in % of one core over its wall time. */
export interface CpuShares {
  /** Each watched process (user + system, all threads). */
  processes: number[];
  /** Time each watched process's main thread waited in a run queue (it was ready but had no CPU). */
  mainThreadWaits: number[];
  /** Each watched thread (`watchCpu`'s `threads`): its time on a CPU and its time waiting for one. */
  threads: Array<{ run: number; wait: number }>;
  /** This process. */
  self: number;
  /** Children of this process that exited during the span (e.g. dnsperf). */
  exitedChildren: number;
  /** The whole machine (200 % on two cores). */
  machine: number;
}

/** Starts watching `pids`, `threads` (pid and tid), this process and the machine; the returned function ends the span. */
export function watchCpu(pids: number[], threads: Array<{ pid: number; tid: number }> = []): () => CpuShares {
  const before = pids.map(cpuMs);
  const waitBefore = pids.map((pid) => threadSched(pid).waitMs);
  const threadsBefore = threads.map(({ pid, tid }) => threadSched(pid, tid));
  const selfBefore = process.cpuUsage();
  const childrenBefore = exitedChildrenCpuMs();
  const machineBefore = machineBusyMs();
  const started = performance.now();
  return () => {
    const share = (ms: number) => (ms / (performance.now() - started)) * 100;
    const self = process.cpuUsage(selfBefore);
    return {
      processes: pids.map((pid, i) => share(cpuMs(pid) - before[i]!)),
      mainThreadWaits: pids.map((pid, i) => share(threadSched(pid).waitMs - waitBefore[i]!)),
      threads: threads.map(({ pid, tid }, i) => {
        const now = threadSched(pid, tid);
        return {
          run: share(now.runMs - threadsBefore[i]!.runMs),
          wait: share(now.waitMs - threadsBefore[i]!.waitMs),
        };
      }),
      self: share((self.user + self.system) / 1000),
      exitedChildren: share(exitedChildrenCpuMs() - childrenBefore),
      machine: share(machineBusyMs() - machineBefore),
    };
  };
}
