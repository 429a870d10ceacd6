import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registryEnv } from '../../scripts/registry-env.js';
import { freePort } from '../../test/harness/ports.js';

const ROOT = resolve(import.meta.dirname, '../..');
const STDOUT = process.env.BENCH_REGISTRY_STDOUT;

/**
 * The registry's launch environment (scripts/registry-env.ts), as npm start and the image give it;
 * BENCH_GLIBC_DEFAULTS=1 leaves out MALLOC_ARENA_MAX, to measure what it changes. (A `--v8-pool-size`
 * among a suite's node flags overrides the one in NODE_OPTIONS.)
 */
function launchEnv(): Record<string, string> {
  const env = registryEnv(process.env);
  if (process.env.BENCH_GLIBC_DEFAULTS === '1') delete env.MALLOC_ARENA_MAX;
  return env;
}

/**
 * How a bench runs the registry: `built` is `node apps/registry/dist/main.js`, the bundle the image runs
 * (the Dockerfile's entry point), built by the bench from the checkout's sources first; `source` is
 * `node --import tsx src/main.ts`, as `npm start` runs it in development. tsx's loader thread and
 * transpile caches cost ~100 MB of RSS that no deployed registry has (126 against 231 MB idle), so
 * memory and CPU figures are taken on the built registry unless BENCH_REGISTRY_RUN=source asks otherwise.
 */
export type RegistryRun = 'built' | 'source';
export const REGISTRY_RUN: RegistryRun = registryRunFrom(process.env.BENCH_REGISTRY_RUN);

function registryRunFrom(value: string | undefined): RegistryRun {
  if (value === undefined || value === '' || value === 'built') return 'built';
  if (value === 'source') return 'source';
  throw new Error(`BENCH_REGISTRY_RUN=${value}: expected built or source`);
}

/** Builds are made once per checkout and process: a bench starts many registries from one build. */
const builds = new Map<string, Promise<string>>();

/**
 * `<root>/apps/registry/dist/main.js`, bundled now from that checkout's sources with that checkout's own
 * `scripts/build.ts` (an older worktree in an A/B builds its own code), so a bench never runs a stale bundle.
 */
export function builtRegistry(root: string): Promise<string> {
  let build = builds.get(root);
  if (build === undefined) {
    build = (async () => {
      const script = (await import(pathToFileURL(join(root, 'scripts/build.ts')).href)) as {
        APP_BUILDS: { app: string; entries: Record<string, string> }[];
        buildApp(target: { app: string; entries: Record<string, string> }): Promise<string[]>;
      };
      const target = script.APP_BUILDS.find((b) => b.app === 'registry');
      if (target === undefined) throw new Error(`${root}/scripts/build.ts builds no registry`);
      await script.buildApp(target);
      return join(root, 'apps/registry/dist/main.js');
    })();
    builds.set(root, build);
  }
  return build;
}

/** A registry running as its own process, as in production, for load tests. */
export interface RegistryProcess {
  url: string;
  /** The UDP/TCP port of its DNS responder on 127.0.0.1. */
  dnsPort: number;
  pid: number;
  rssMb(): number;
  /** Its child processes: the DNS responder processes with `dns.responder_processes`, and tsx's esbuild. */
  childPids(): number[];
  /** Its DNS responder processes (`dns.responder_processes`). */
  responderPids(): number[];
  stop(): Promise<void>;
}

/** Resident memory of a process in MB, from /proc/<pid>/status. */
export function rssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** The processes `pid` started and that still run (children of its threads). */
export function childPidsOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .split(' ')
      .filter((p) => p !== '')
      .map(Number),
  );
}

/** More `control_plane` keys for one bench, e.g. `{ route_cache_ttl: '0s' }`. */
export type ControlPlaneExtras = Record<string, string | number>;
/** More `dns` keys for one bench, e.g. `{ responder_processes: 2 }`. */
export type DnsExtras = Record<string, string | number | boolean>;

/** Starts the registry (built, or from source: `run`) with a bench config (long heartbeat timeout, no storm guard). */
export async function startRegistryProcess(
  storage: { type: 'embedded'; fsyncBeforeAck?: boolean } | { type: 'etcd'; endpoint: string },
  controlPlane: ControlPlaneExtras = {},
  /**
   * Another checkout's registry (a worktree of an older commit, for A/B runs), node flags, and a
   * command to run node under (e.g. valgrind and its flags; then allow a longer start), and a file
   * its stdout is appended to (instead of BENCH_REGISTRY_STDOUT's).
   */
  source: {
    root?: string;
    nodeFlags?: string[];
    launcher?: string[];
    startTimeoutMs?: number;
    stdoutFile?: string;
    /** Built bundle or TypeScript through tsx (default: REGISTRY_RUN, from BENCH_REGISTRY_RUN). */
    run?: RegistryRun;
  } = {},
  dns: DnsExtras = {},
) {
  const root = source.root ?? ROOT;
  const entry =
    (source.run ?? REGISTRY_RUN) === 'built'
      ? [await builtRegistry(root)]
      : ['--import', 'tsx', join(root, 'apps/registry/src/main.ts')];
  const dir = mkdtempSync(join(tmpdir(), 'reach-bench-'));
  const port = await freePort();
  const dnsPort = await freePort();
  const storageYaml =
    storage.type === 'embedded'
      ? `storage:\n  type: embedded\n  path: ${dir}/data\n${storage.fsyncBeforeAck ? '  fsync_before_ack: true\n' : ''}`
      : `storage:\n  type: etcd\n  etcd:\n    endpoints: [${storage.endpoint}]\n`;
  const config = `control_plane:
  listen: 127.0.0.1:${port}
  storm:
    min_instances: 1000000
${Object.entries({ heartbeat_interval: '60s', heartbeat_timeout: '300s', ...controlPlane })
  .map(([key, value]) => `  ${key}: ${JSON.stringify(value)}\n`)
  .join('')}dns:
  listen: 127.0.0.1:${dnsPort}
  server: 127.0.0.1:${dnsPort}
${Object.entries(dns)
  .map(([key, value]) => `  ${key}: ${JSON.stringify(value)}\n`)
  .join('')}${storageYaml}`;
  writeFileSync(join(dir, 'reach.yaml'), config);
  const [command, ...launcherArgs] = [...(source.launcher ?? []), process.execPath];
  const stdoutFile = source.stdoutFile ?? STDOUT;
  const stdout = stdoutFile === undefined ? undefined : openSync(stdoutFile, 'a');
  const child: ChildProcess = spawn(command!, [...launcherArgs, ...(source.nodeFlags ?? []), ...entry], {
    env: {
      ...process.env,
      ...launchEnv(),
      REACH_CONFIG: join(dir, 'reach.yaml'),
      LOG_LEVEL: 'warn',
    },
    // BENCH_REGISTRY_STDOUT=<file>: the registry's stdout (e.g. `--trace-gc` lines) appended there.
    stdio: ['ignore', stdout ?? 'ignore', 'inherit'],
  });
  if (stdout !== undefined) closeSync(stdout);
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + (source.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error('registry exited during start');
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not yet listening
    }
    if (performance.now() > deadline) {
      // Not left running: the caller never gets a handle to stop it (a loaded machine left one behind).
      child.kill('SIGKILL');
      throw new Error('registry did not become ready');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    dnsPort,
    pid: child.pid!,
    rssMb: () => rssMbOf(child.pid!),
    childPids: () => childPidsOf(child.pid!),
    responderPids: () =>
      childPidsOf(child.pid!).filter((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('responder-worker'),
      ),
    stop: () =>
      new Promise<void>((done) => {
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          done();
        });
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  } satisfies RegistryProcess;
}
