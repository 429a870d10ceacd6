import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** The Debian tools tests and benchmarks drive, with the package that installs each. */
export const TOOLS = {
  dig: { path: '/usr/bin/dig', pkg: 'bind9-dnsutils' },
  kdig: { path: '/usr/bin/kdig', pkg: 'knot-dnsutils' },
  knotd: { path: '/usr/sbin/knotd', pkg: 'knot' },
  knotc: { path: '/usr/sbin/knotc', pkg: 'knot' },
  dnsperf: { path: '/usr/bin/dnsperf', pkg: 'dnsperf' },
  wrk: { path: '/usr/bin/wrk', pkg: 'wrk' },
} as const;

/** A tool's name in {@link TOOLS}. */
export type ToolName = keyof typeof TOOLS;

/** Fails with a clear message when a tool is missing, naming the package to install. */
export function requireTool(name: ToolName): string {
  const tool = TOOLS[name];
  try {
    accessSync(tool.path, constants.X_OK);
  } catch {
    throw new Error(`${tool.path} is missing: run \`apt-get install ${tool.pkg}\``);
  }
  return tool.path;
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
