import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** The Debian DNS tools the DNS tests drive, with the package that installs each. */
export const TOOLS = {
  dig: { path: '/usr/bin/dig', pkg: 'bind9-dnsutils' },
  kdig: { path: '/usr/bin/kdig', pkg: 'knot-dnsutils' },
  knotd: { path: '/usr/sbin/knotd', pkg: 'knot' },
  knotc: { path: '/usr/sbin/knotc', pkg: 'knot' },
} as const;

/** Fails with a clear message when a tool is missing, naming the package to install. */
export function requireTool(name: keyof typeof TOOLS): string {
  const tool = TOOLS[name];
  try {
    accessSync(tool.path, constants.X_OK);
  } catch {
    throw new Error(`${tool.path} is missing: run \`apt-get install ${tool.pkg}\` to run the DNS tests`);
  }
  return tool.path;
}

/** Runs a tool and returns its standard output; fails with its output when it exits non-zero. */
export function run(name: keyof typeof TOOLS, args: readonly string[], timeoutMs = 15_000): Promise<string> {
  const bin = requireTool(name);
  return new Promise((resolve, reject) => {
    execFile(bin, [...args], { timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${name} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** `dig @127.0.0.1 -p PORT …`. */
export const dig = (port: number, ...args: string[]) =>
  run('dig', ['@127.0.0.1', '-p', String(port), ...args]);

/** `kdig @127.0.0.1 -p PORT …`. */
export const kdig = (port: number, ...args: string[]) =>
  run('kdig', ['@127.0.0.1', '-p', String(port), ...args]);

/** The records of one section of dig/kdig output, as whitespace-split fields (owner, ttl, class, type, rdata…). */
export function section(output: string, name: 'ANSWER' | 'AUTHORITY' | 'ADDITIONAL'): string[][] {
  const lines = output.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`;; ${name} SECTION:`));
  if (start < 0) return [];
  const out: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || line.startsWith(';;')) break;
    out.push(line.trim().split(/\s+/));
  }
  return out;
}

/** The `status:` of dig/kdig output (NOERROR, NXDOMAIN, …). */
export function status(output: string): string {
  return /status: ([A-Z]+)/.exec(output)?.[1] ?? 'none';
}

/** The header flags of dig/kdig output, e.g. ['qr', 'aa', 'rd']. */
export function flags(output: string): string[] {
  const match = /;; [Ff]lags: ([a-z ]+);/.exec(output);
  return match ? match[1]!.trim().split(/\s+/) : [];
}
