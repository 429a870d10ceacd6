import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool, run } from './debian-tools.js';
import { freePort } from './ports.js';

/** A knotd serving one zone file on a free loopback port, from a temporary directory. */
export interface RunningKnot {
  port: number;
  /** knotd's process id (for CPU readings). */
  pid: number;
  /** `knotc -c <conf> …` against this server. */
  knotc(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** Starts Debian's knotd with `zoneText` as the master file of `zone`; resolves once the zone is loaded. */
export async function startKnot(zone: string, zoneText: string): Promise<RunningKnot> {
  const knotd = requireTool('knotd');
  requireTool('knotc');
  const dir = await mkdtemp(join(tmpdir(), 'reach-knot-'));
  const port = await freePort();
  const conf = join(dir, 'knot.conf');
  await writeFile(join(dir, `${zone}.zone`), zoneText);
  await writeFile(
    conf,
    [
      'server:',
      `    listen: 127.0.0.1@${port}`,
      `    rundir: ${dir}`,
      'database:',
      `    storage: ${dir}`,
      'log:',
      '  - target: stderr',
      '    any: warning',
      'zone:',
      `  - domain: ${zone}`,
      `    file: ${join(dir, `${zone}.zone`)}`,
      `    storage: ${dir}`,
      '',
    ].join('\n'),
  );
  let log = '';
  const child: ChildProcess = spawn(knotd, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const knotc = (...args: string[]) => run('knotc', ['-c', conf, ...args]);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`knotd exited (${child.exitCode}):\n${log}`);
    }
    try {
      if (/serial: \d+/.test(await knotc('zone-status', zone))) break;
    } catch {
      // Control socket not up yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`knotd did not load ${zone} within 15 s:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, pid: child.pid!, knotc, stop };
}
