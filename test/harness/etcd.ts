import { type ChildProcess, spawn } from 'node:child_process';
import { constants, readdirSync, readFileSync } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

const ETCD_BIN = '/usr/bin/etcd';

/** A real etcd server for one test file. */
export interface RunningEtcd {
  /** Client URL, e.g. `http://127.0.0.1:43121`. */
  endpoint: string;
  /** Stops etcd gracefully and removes its data. */
  stop(): Promise<void>;
  /** Kills etcd at once (SIGKILL), keeping its data so `restart` can bring it back. */
  kill(): void;
  /** Starts etcd again on the same ports and data, after `kill`. */
  restart(): Promise<void>;
  /** Freezes etcd (SIGSTOP): connections stay open, nothing answers, its clock jumps on `thaw`. */
  freeze(): void;
  /** Lets a frozen etcd run again (SIGCONT). */
  thaw(): void;
  /** The running etcd's process id (benchmarks read its CPU time). */
  pid(): number | undefined;
}

/**
 * Blocks until every thread of `pid` is stopped (state T in /proc), at most 2 s. A signal is delivered
 * asynchronously: without this, a request sent right after SIGSTOP can still be answered by a thread of
 * etcd's that had not stopped yet.
 */
function waitUntilStopped(pid: number): void {
  const stopped = () => {
    try {
      return readdirSync(`/proc/${pid}/task`).every((tid) =>
        /^\d+ \(.*\) [tT] /.test(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')),
      );
    } catch {
      return true; // gone: nothing of it answers either
    }
  };
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 2000 && !stopped(); waited++) Atomics.wait(pause, 0, 0, 1);
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

async function waitHealthy(endpoint: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`etcd exited (${child.exitCode ?? child.signalCode}) before it answered:\n${log()}`);
    }
    try {
      const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok && ((await res.json()) as { health?: string }).health === 'true') return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`etcd did not become healthy within 30 s:\n${log()}`);
}

/** Server TLS of a test etcd: its certificate and key, and the CA its clients' certificates must come from. */
export interface EtcdServerTls {
  ca: string;
  cert: string;
  key: string;
}

/**
 * Starts Debian's etcd on free loopback ports with a temporary data dir, and waits until it answers.
 * With `tls`, clients must speak TLS and present a certificate from `tls.ca` (health is read from a
 * plain metrics listener then).
 */
export async function startEtcd(
  options: { tls?: EtcdServerTls; extraArgs?: string[] } = {},
): Promise<RunningEtcd> {
  try {
    await access(ETCD_BIN, constants.X_OK);
  } catch {
    throw new Error(`${ETCD_BIN} is missing: run \`apt-get install etcd-server\` to run the etcd tests`);
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'reach-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const { tls } = options;
  const endpoint = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const metrics = tls ? `http://127.0.0.1:${await freePort()}` : endpoint;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name=reach-test',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=reach-test=${peer}`,
    '--logger=zap',
    '--log-level=error',
    ...(tls
      ? [
          `--cert-file=${tls.cert}`,
          `--key-file=${tls.key}`,
          `--trusted-ca-file=${tls.ca}`,
          '--client-cert-auth',
          `--listen-metrics-urls=${metrics}`,
        ]
      : []),
    ...(options.extraArgs ?? []),
  ];
  let child: ChildProcess | undefined;
  let output = '';
  const launch = async () => {
    output = '';
    const proc = spawn(ETCD_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    running.add(proc);
    proc.once('exit', () => running.delete(proc));
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4_000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    await waitHealthy(metrics, proc, () => output);
  };
  const exited = (proc: ChildProcess) =>
    proc.exitCode !== null || proc.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  await launch();
  return {
    endpoint,
    kill: () => {
      child?.kill('SIGKILL');
    },
    freeze: () => {
      if (child?.pid === undefined) return;
      child.kill('SIGSTOP');
      waitUntilStopped(child.pid);
    },
    thaw: () => {
      child?.kill('SIGCONT');
    },
    pid: () => child?.pid,
    restart: async () => {
      if (child !== undefined) await exited(child);
      await launch();
    },
    stop: async () => {
      const proc = child;
      if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) {
        const done = exited(proc);
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
        await done;
        clearTimeout(timer);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
