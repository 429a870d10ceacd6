import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChildExit,
  exitOf,
  isRunning,
  LineCollector,
  pollUntil,
  signalAndWait,
  trackChild,
} from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';

const ORCHESTRATOR_MAIN = join(REPO_ROOT, 'apps/orchestrator/src/main.ts');

/** How to start the orchestrator process. */
export interface OrchestratorProcessOptions {
  /** The DNS server discovery asks (the registry's responder). */
  dnsPort: number;
  /** Postgres URL; PGlite in a temporary directory when left out. */
  databaseUrl?: string;
  /** The config file's content (JSON is YAML), e.g. providers or an API token. */
  config?: Record<string, unknown>;
  /** More environment, e.g. `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  env?: Record<string, string>;
  /** Storage directory (PGlite data lives there); a fresh temporary one when left out. */
  dir?: string;
}

/** The orchestrator as a real process (`node --import tsx apps/orchestrator/src/main.ts`) on a free port. */
export class OrchestratorProcess {
  readonly stdout = new LineCollector();
  readonly stderr = new LineCollector();
  readonly exited: Promise<ChildExit>;

  private constructor(
    readonly child: ChildProcess,
    readonly dir: string,
  ) {
    trackChild(child);
    this.stdout.attach(child.stdout);
    this.stderr.attach(child.stderr);
    this.exited = exitOf(child);
  }

  /** Starts it and waits for its `{"ready":{"url"}}` line. */
  static async start(options: OrchestratorProcessOptions): Promise<OrchestratorProcess> {
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'reach-orchestrator-')));
    const configFile = join(dir, 'reach.yaml');
    await writeFile(configFile, JSON.stringify(options.config ?? {}));
    const env: Record<string, string | undefined> = {
      ...process.env,
      REACH_CONFIG: configFile,
      REACH_ORCHESTRATOR_LISTEN: '127.0.0.1:0',
      REACH_DNS_SERVER: `127.0.0.1:${options.dnsPort}`,
      REACH_STORAGE_PATH: dir,
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'warn',
      ...options.env,
    };
    // The CI's DATABASE_URL must not leak into a PGlite run, nor its OTel settings into others.
    if (options.databaseUrl === undefined) delete env.DATABASE_URL;
    for (const key of Object.keys(env))
      if (key.startsWith('OTEL_') && !(key in (options.env ?? {}))) delete env[key];
    const child = spawn(process.execPath, ['--import', 'tsx', ORCHESTRATOR_MAIN], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc = new OrchestratorProcess(child, dir);
    await proc.ready();
    return proc;
  }

  /** `http://127.0.0.1:<port>` once ready. */
  url = '';

  private async ready(): Promise<void> {
    this.url = await pollUntil(
      () => {
        const line = this.stdout.lines.find((l) => l.startsWith('{"ready"'));
        if (line) return (JSON.parse(line) as { ready: { url: string } }).ready.url;
        if (!isRunning(this.child))
          throw new Error(`orchestrator exited before it was ready:\n${this.stderr.tail()}`);
        return undefined;
      },
      90_000,
      () => `orchestrator not ready:\n${this.stderr.tail()}\n${this.stdout.tail()}`,
    );
  }

  /** SIGKILL (a crash: nothing is handed over); the directory stays for a successor. */
  async kill(): Promise<ChildExit> {
    return signalAndWait(this.child, 'SIGKILL');
  }

  /** SIGTERM, wait, and remove its directory. */
  async stop(): Promise<ChildExit> {
    const exit = await signalAndWait(this.child, 'SIGTERM');
    await rm(this.dir, { recursive: true, force: true });
    return exit;
  }
}
