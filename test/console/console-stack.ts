import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../harness/ports.js';

/** The repository root: children run there so `--import tsx` resolves. */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One `node --import tsx …` child with its recent output kept for failure messages. */
class Service {
  private readonly lines: string[] = [];
  private exited: string | null = null;

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (this.lines.length > 200) this.lines.splice(0, this.lines.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('exit', (code, signal) => {
      this.exited = `${signal ?? code}`;
    });
  }

  static start(name: string, args: string[], env: Record<string, string>): Service {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Service(name, child);
  }

  /** Throws with the child's output when it has already exited. */
  assertRunning(): void {
    if (this.exited !== null)
      throw new Error(`${this.name} exited (${this.exited}):\n${this.lines.slice(-30).join('\n')}`);
  }

  /** The last lines it printed. */
  output(): string {
    return this.lines.slice(-30).join('\n');
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.exited !== null) return;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  }
}

/** Polls `probe` until it resolves true, failing early when `service` died. */
async function until(what: string, probe: () => Promise<boolean>, services: Service[], timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    for (const s of services) s.assertRunning();
    if (await probe().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `${what} not ready within ${timeoutMs} ms\n${services.map((s) => `[${s.name}] ${s.output()}`).join('\n')}`,
  );
}

const ok = (url: string) => async () => (await fetch(url)).ok;

/** The catalog demo agents the stack starts (one per catalog capability; the verifier serves two). */
export const STACK_AGENTS = ['planning', 'research', 'verifier', 'implementation', 'writing', 'synthesis'];

/** A whole embedded system on free ports: registry + DNS, demo agents, orchestrator (PGlite), console. */
export class ConsoleStack {
  private constructor(
    readonly registryUrl: string,
    readonly orchestratorUrl: string,
    readonly consoleUrl: string,
    readonly jaegerUrl: string,
    private readonly services: Service[],
    private readonly dir: string,
  ) {}

  /** Starts every process and waits until all agents are registered. */
  static async start(options: { agentDelayMs: number; agents?: string[] }): Promise<ConsoleStack> {
    const dir = await mkdtemp(join(tmpdir(), 'reach-console-e2e-'));
    const [http, dns, orch, web] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const jaegerUrl = 'http://127.0.0.1:16686';
    const config = [
      `control_plane: { listen: "127.0.0.1:${http}" }`,
      `dns: { listen: "127.0.0.1:${dns}", server: "127.0.0.1:${dns}" }`,
      `storage: { type: embedded, path: "${join(dir, 'data')}" }`,
      `orchestrator: { listen: "127.0.0.1:${orch}" }`,
      // Two busy cores and cold tsx agents: the 300 ms connect default tests the machine, not the console.
      'agent_sdk: { connection_timeout_ms: 3000, response_timeout_ms: 10000 }',
      `console: { listen: "127.0.0.1:${web}", jaeger_url: "${jaegerUrl}" }`,
    ].join('\n');
    await writeFile(join(dir, 'reach.yaml'), config);
    // The embedded defaults: PGlite even when the shell has DATABASE_URL; no OTel export.
    const { DATABASE_URL: _db, OTEL_EXPORTER_OTLP_ENDPOINT: _otel, ...base } = process.env;
    const env = {
      ...(base as Record<string, string>),
      REACH_CONFIG: join(dir, 'reach.yaml'),
      LOG_LEVEL: 'warn',
    };
    const registryUrl = `http://127.0.0.1:${http}`;
    const services: Service[] = [];
    const stack = new ConsoleStack(
      registryUrl,
      `http://127.0.0.1:${orch}`,
      `http://127.0.0.1:${web}`,
      jaegerUrl,
      services,
      dir,
    );
    try {
      services.push(Service.start('registry', ['apps/registry/src/main.ts'], env));
      await until('registry', ok(`${registryUrl}/readyz`), services, 90_000);
      const agentEnv = {
        ...env,
        REACH_CONTROL_PLANE_URL: registryUrl,
        HOST: '127.0.0.1',
        PORT: '0',
        DEMO_AGENT_DELAY_MS: String(options.agentDelayMs),
      };
      for (const agent of options.agents ?? STACK_AGENTS)
        services.push(
          Service.start(
            `agent:${agent}`,
            ['apps/agent-sdk/examples/catalog-agents/main.ts', agent],
            agentEnv,
          ),
        );
      services.push(Service.start('orchestrator', ['apps/orchestrator/src/main.ts'], env));
      services.push(Service.start('console', ['apps/console/src/main.ts'], env));
      await until('orchestrator', ok(`${stack.orchestratorUrl}/readyz`), services, 240_000);
      await until('console', ok(`${stack.consoleUrl}/healthz`), services, 240_000);
      await until(
        'agents',
        async () => {
          const res = await fetch(`${registryUrl}/v1/agents?state=healthy`);
          return (
            ((await res.json()) as { instances: unknown[] }).instances.length >=
            (options.agents ?? STACK_AGENTS).length
          );
        },
        services,
        120_000,
      );
      return stack;
    } catch (error) {
      await stack.stop();
      throw error;
    }
  }

  /** Stops the console and orchestrator, then the agents, then the registry; removes the data. */
  async stop(): Promise<void> {
    for (const s of [...this.services].reverse()) await s.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
