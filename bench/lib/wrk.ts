import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What one wrk run measured. */
export interface WrkResult {
  requestsPerSec: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** CPU (user + system) wrk itself used, in ms: at 100,000 instances its Lua script must not become the limit. */
  clientCpuMs: number;
}

/** CPU ms of this process's children that have exited and been waited for (/proc/self/stat cutime + cstime). */
function reapedChildrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

/** Parses wrk's `--latency` report. */
export function parseWrk(output: string): Omit<WrkResult, 'clientCpuMs'> {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const total = /(\d+) requests in/.exec(output);
  const p50 = /\s50%\s+([\d.]+)(us|ms|s|m)/.exec(output);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s|m)/.exec(output);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  if (!rps || !total) throw new Error(`cannot parse wrk output:\n${output}`);
  return {
    requestsPerSec: Number(rps[1]),
    requests: Number(total[1]),
    p50Ms: p50 ? toMs(p50[1]!, p50[2]!) : Number.NaN,
    p99Ms: p99 ? toMs(p99[1]!, p99[2]!) : Number.NaN,
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

/** Runs wrk against a loopback URL for a bounded time, optionally with a Lua script. */
export async function wrk(
  url: string,
  options: { seconds?: number; connections?: number; threads?: number; lua?: string } = {},
): Promise<WrkResult> {
  if (!/^http:\/\/127\.0\.0\.1:/.test(url)) throw new Error('benchmarks target 127.0.0.1 only');
  const args = [
    `-t${options.threads ?? 1}`,
    `-c${options.connections ?? 32}`,
    `-d${Math.round(options.seconds ?? 5)}s`,
    '--latency',
  ];
  // A script holding 100,000 instances is ~8 MB: removed once wrk is done.
  const file = options.lua ? join(tmpdir(), `reach-bench-${process.pid}-${Date.now()}.lua`) : undefined;
  if (file) {
    writeFileSync(file, options.lua!);
    args.push('-s', file);
  }
  args.push(url);
  // wrk's CPU is what this process's reaped-children time grows by while it runs (a child of the bench
  // that exits meanwhile would be counted too; the suites start none then).
  const cpuBefore = reapedChildrenCpuMs();
  let stdout: string;
  let stderr: string;
  try {
    ({ stdout, stderr } = await run('wrk', args, { maxBuffer: 16 * 1024 * 1024 }));
  } finally {
    if (file) rmSync(file, { force: true });
  }
  const clientCpuMs = reapedChildrenCpuMs() - cpuBefore;
  // A script wrk cannot load is only a line on stderr, and wrk then sends its default GET instead.
  if (/\.lua:\d+:/.test(stderr)) throw new Error(`wrk could not run its Lua script:\n${stderr}`);
  return { ...parseWrk(stdout), clientCpuMs };
}
