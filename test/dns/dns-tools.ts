import { run } from '../harness/debian-tools.js';

export { requireTool, run, TOOLS } from '../harness/debian-tools.js';

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
