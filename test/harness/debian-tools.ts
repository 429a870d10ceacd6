import { execFile } from 'node:child_process';
import { findTool, readSystemPackages } from '../../scripts/prerequisites.mjs';

// The one list of Debian packages (scripts/system-packages.txt) also names what the tests drive.
const PACKAGES = readSystemPackages(new URL('../../scripts/system-packages.txt', import.meta.url).pathname);

/** The Debian tools tests and benchmarks drive (knotc comes with knotd's package). */
export const TOOLS = {
  dig: 'dig',
  kdig: 'kdig',
  knotd: 'knotd',
  knotc: 'knotd',
  dnsperf: 'dnsperf',
  wrk: 'wrk',
  promtool: 'promtool',
} as const;

/** A tool's name in {@link TOOLS}. */
export type ToolName = keyof typeof TOOLS;

/** Fails with a clear message when a tool is missing, naming the package to install. */
export function requireTool(name: ToolName): string {
  const path = findTool(name, process.env.PATH ?? '');
  if (path !== undefined) return path;
  const pkg = PACKAGES.find((p) => p.command === TOOLS[name])?.pkg ?? name;
  throw new Error(`${name} is missing: run \`apt-get install ${pkg}\``);
}

/** Runs a tool and returns its standard output; fails with its output when it exits non-zero. */
export function run(name: ToolName, args: readonly string[], timeoutMs = 15_000): Promise<string> {
  const bin = requireTool(name);
  return new Promise((resolve, reject) => {
    execFile(bin, [...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${name} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}
