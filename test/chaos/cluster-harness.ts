import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ClusterPorts,
  type ClusterProcess,
  clusterPorts,
  clusterShape,
} from '../../scripts/cluster/cluster-shape.js';
import { TcpBalancer } from '../../scripts/cluster/tcp-balancer.js';
import { isRunning, LineCollector, pollUntil, signalAndWait, trackChild } from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';
import { createScratchDatabase } from '../orchestrator/postgres-db.js';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port base whose cluster ports are all free right now. */
async function freeBase(): Promise<{ base: number; ports: ClusterPorts }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    // Below the kernel's ephemeral range (32768+): a killed member's port must still be free when it is
    // started again, and an outgoing connection may take any ephemeral port in between.
    const base = 20_000 + Math.floor(Math.random() * 120) * 100;
    const ports = clusterPorts(base);
    const all = [
      ports.registry,
      ports.orchestrator,
      ports.orchestrator + 1,
      ports.dns,
      ports.dns + 1,
      ports.console,
      ...ports.registryReplicas,
      ...ports.etcd.flatMap((p) => [p.client, p.peer]),
    ];
    if ((await Promise.all(all.map(portFree))).every(Boolean)) return { base, ports };
  }
  throw new Error('no free port base');
}

async function ok(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The cluster shape of `pnpm start --cluster` (scripts/cluster/cluster-shape.ts, the same processes
 * and settings), each process started here so a test can kill and restart any one of them.
 */
export class ClusterUnderTest {
  readonly logs = new Map<string, LineCollector>();
  private readonly children = new Map<string, ChildProcess>();
  private balancer: TcpBalancer | undefined;

  private constructor(
    readonly ports: ClusterPorts,
    readonly processes: ClusterProcess[],
    private readonly backends: number[],
    private readonly cleanup: () => Promise<void>,
  ) {}

  static async start(options: { demo?: boolean } = {}): Promise<ClusterUnderTest> {
    const { ports } = await freeBase();
    const data = await mkdtemp(join(tmpdir(), 'reach-cluster-'));
    const db = await createScratchDatabase();
    const { processes, registryBackends } = clusterShape({
      ports,
      data,
      databaseUrl: db.url,
      demo: options.demo ?? true,
    });
    const cluster = new ClusterUnderTest(ports, processes, registryBackends, async () => {
      await db.drop();
      await rm(data, { recursive: true, force: true });
    });
    for (const member of cluster.of('etcd')) cluster.launch(member.name);
    for (const member of cluster.of('etcd')) await cluster.waitFor(member.name, `${member.url}/health`);
    cluster.balancer = await TcpBalancer.listen(
      '127.0.0.1',
      ports.registry,
      cluster.backends.map((port) => ({ host: '127.0.0.1', port })),
    );
    for (const registry of cluster.of('registry')) {
      cluster.launch(registry.name);
      await cluster.waitFor(registry.name, registry.readyUrl!);
    }
    for (const agent of cluster.of('agent')) cluster.launch(agent.name);
    for (const p of cluster.of('orchestrator')) cluster.launch(p.name);
    for (const p of cluster.of('orchestrator')) await cluster.waitFor(p.name, p.readyUrl!);
    return cluster;
  }

  of(role: ClusterProcess['role']): ClusterProcess[] {
    return this.processes.filter((p) => p.role === role);
  }

  get(name: string): ClusterProcess {
    const found = this.processes.find((p) => p.name === name);
    if (!found) throw new Error(`no process ${name}`);
    return found;
  }

  /** The registry "Service" URL (the balancer), what agents use. */
  get registryUrl(): string {
    return `http://127.0.0.1:${this.ports.registry}`;
  }

  running(name: string): boolean {
    const child = this.children.get(name);
    return child !== undefined && isRunning(child);
  }

  /** Starts (or starts again) one process of the shape. */
  launch(name: string): void {
    const p = this.get(name);
    const logs = this.logs.get(name) ?? new LineCollector();
    this.logs.set(name, logs);
    // etcd is started as itself (not through run-command.mjs), so a kill here kills the member.
    const [command, args] =
      p.role === 'etcd' ? [p.args[1]!, p.args.slice(2)] : [process.execPath, ['--import', 'tsx', ...p.args]];
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...p.env, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    trackChild(child);
    logs.attach(child.stdout);
    logs.attach(child.stderr);
    this.children.set(name, child);
  }

  async waitFor(name: string, url: string, timeoutMs = 120_000): Promise<void> {
    await pollUntil(
      async () => {
        if (!this.running(name)) throw new Error(`${name} exited:\n${this.logs.get(name)?.tail()}`);
        return (await ok(url)) ? true : undefined;
      },
      timeoutMs,
      () => `${name} not ready at ${url}:\n${this.logs.get(name)?.tail()}`,
    );
  }

  /** Kills one process (SIGKILL by default: a crash, no clean-up) and waits for its end. */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.children.get(name);
    if (child) await signalAndWait(child, signal);
  }

  async stop(): Promise<void> {
    const order: ClusterProcess['role'][] = ['agent', 'console', 'orchestrator', 'registry', 'etcd'];
    for (const role of order)
      await Promise.all(
        this.of(role).map(async (p) => {
          const child = this.children.get(p.name);
          if (child && isRunning(child)) await signalAndWait(child, 'SIGTERM', 8000);
        }),
      );
    await this.balancer?.close();
    await this.cleanup();
  }
}
