import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ChildExit,
  exitOf,
  isRunning,
  LineCollector,
  pollUntil,
  signalAndWait,
  trackChild,
} from './child-output.js';
import { freePort } from './ports.js';

/** The repository root: child processes run there so `--import tsx` resolves. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REGISTRY_MAIN = join(REPO_ROOT, 'apps/registry/src/main.ts');
// The tsx loader takes several seconds on a busy two-core machine.
const READY_TIMEOUT_MS = 60_000;

/** A config file's content (the `control_plane / storage / …` shape); the listen addresses are set here. */
export type RegistryConfigFile = Record<string, unknown> & {
  control_plane?: Record<string, unknown>;
  dns?: Record<string, unknown>;
};

/** How to start a registry process. */
export interface RegistryProcessOptions {
  config: RegistryConfigFile;
  /** The port to serve on; kept across restarts so agents find the registry again. @default a free port */
  port?: number;
  /** The DNS responder's port (UDP and TCP), kept across restarts. @default a free port */
  dnsPort?: number;
  /** More environment for the process (e.g. a `WallClockShift`'s, to move its wall clock). */
  env?: Record<string, string>;
}

/**
 * The registry as a real process (`node --import tsx apps/registry/src/main.ts`), configured through a
 * temporary file named by `REACH_CONFIG`. Its stdout (pino JSON lines) is kept across restarts.
 */
export class RegistryProcess {
  /** Every stdout line of every run, oldest first. */
  readonly stdout = new LineCollector();
  readonly stderr = new LineCollector();
  private child: ChildProcess | null = null;
  private config: RegistryConfigFile;

  private constructor(
    readonly port: number,
    /** The registry's DNS responder port on 127.0.0.1. */
    readonly dnsPort: number,
    private readonly dir: string,
    config: RegistryConfigFile,
    private readonly env: Record<string, string> = {},
  ) {
    this.config = config;
  }

  /** Starts a registry and waits until `/readyz` answers 200. */
  static async start(options: RegistryProcessOptions): Promise<RegistryProcess> {
    const port = options.port ?? (await freePort());
    const dnsPort = options.dnsPort ?? (await freePort());
    const dir = await mkdtemp(join(tmpdir(), 'reach-registry-proc-'));
    const registry = new RegistryProcess(port, dnsPort, dir, options.config, options.env);
    await registry.launch();
    return registry;
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The running process's id, or null between runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The registry's JSON log records (all runs). */
  logs(): Array<Record<string, unknown>> {
    return this.stdout.json();
  }

  /** Graceful stop: SIGTERM and wait for the exit. */
  stop(): Promise<ChildExit> {
    return this.signal('SIGTERM');
  }

  /** Crash: SIGKILL and wait for the exit. */
  kill(): Promise<ChildExit> {
    return this.signal('SIGKILL');
  }

  /** Starts the process again on the same port (after stop or kill), optionally with another config. */
  async restart(config?: RegistryConfigFile): Promise<void> {
    if (this.child && isRunning(this.child)) throw new Error('restart: the registry is still running');
    if (config) this.config = config;
    await this.launch();
  }

  /** Stops the process if it runs and removes the config directory. */
  async dispose(): Promise<void> {
    if (this.child && isRunning(this.child)) await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async signal(signal: NodeJS.Signals): Promise<ChildExit> {
    const child = this.child;
    if (!child) throw new Error('the registry was never started');
    return signalAndWait(child, signal);
  }

  private async launch(): Promise<void> {
    const file = join(this.dir, 'reach.yaml');
    const config = {
      ...this.config,
      control_plane: { ...this.config.control_plane, listen: `127.0.0.1:${this.port}` },
      dns: { ...this.config.dns, listen: `127.0.0.1:${this.dnsPort}` },
    };
    // JSON is YAML, and the test package needs no YAML writer for it.
    await writeFile(file, JSON.stringify(config, null, 2));
    const child = spawn(process.execPath, ['--import', 'tsx', REGISTRY_MAIN], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env, REACH_CONFIG: file, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    trackChild(child);
    this.child = child;
    this.stdout.attach(child.stdout);
    this.stderr.attach(child.stderr);
    await pollUntil(
      async () => {
        if (!isRunning(child)) {
          const exit = await exitOf(child);
          throw new Error(
            `registry exited (${exit.code ?? exit.signal}) before it was ready:\n${this.stderr.tail()}\n${this.stdout.tail()}`,
          );
        }
        try {
          const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
          await res.body?.cancel();
          return res.status === 200 ? true : undefined;
        } catch {
          return undefined; // not listening yet
        }
      },
      READY_TIMEOUT_MS,
      () => `registry on ${this.url} not ready:\n${this.stderr.tail()}\n${this.stdout.tail()}`,
    );
  }
}
