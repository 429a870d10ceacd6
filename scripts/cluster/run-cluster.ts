// `pnpm start --cluster`: the production shape on one machine (scripts/cluster/cluster-shape.ts) under
// the start script's supervisor: crashed processes restart, Ctrl-C stops agents first, etcd last.
import { mkdirSync } from 'node:fs';
import { type ServiceSpec, Supervisor } from '../supervisor.js';
import { type ClusterPorts, clusterShape } from './cluster-shape.js';
import { TcpBalancer } from './tcp-balancer.js';

export interface RunClusterOptions {
  ports: ClusterPorts;
  data: string;
  demo: boolean;
  databaseUrl: string | undefined;
}

/** Polls an etcd member's /health until it reports healthy (a quorum formed). */
async function etcdHealthy(url: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.ok && ((await res.json()) as { health?: string }).health === 'true') return;
    } catch {
      // Not up yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`etcd at ${url} not healthy within ${timeoutMs} ms`);
}

/** Runs the cluster shape until a signal; never returns. */
export async function runCluster(options: RunClusterOptions): Promise<never> {
  if (!options.databaseUrl) {
    process.stderr.write('start --cluster: the orchestrators need Postgres: set DATABASE_URL\n');
    process.exit(2);
  }
  mkdirSync(options.data, { recursive: true });
  const { processes, registryBackends } = clusterShape({
    ports: options.ports,
    data: options.data,
    databaseUrl: options.databaseUrl,
    demo: options.demo,
  });
  const spec = (p: (typeof processes)[number]): ServiceSpec => ({
    name: p.name,
    args: p.args,
    env: p.env,
    ...(p.readyUrl === undefined ? {} : { readyUrl: p.readyUrl }),
    restart: true,
  });
  const of = (role: string) => processes.filter((p) => p.role === role);
  const supervisor = new Supervisor([
    of('agent').map((p) => p.name),
    ['console', ...of('orchestrator').map((p) => p.name)],
    of('registry').map((p) => p.name),
    of('etcd').map((p) => p.name),
  ]);
  const log = supervisor.logger;
  let balancer: TcpBalancer | undefined;
  let stopping: Promise<void> | undefined;
  const stop = async (code: number): Promise<never> => {
    stopping ??= (async () => {
      log.info('stopping agents, then services, then etcd…');
      await supervisor.stopAll();
      await balancer?.close();
    })();
    await stopping;
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  try {
    for (const member of of('etcd')) supervisor.start(spec(member));
    for (const member of of('etcd')) await etcdHealthy(member.url!, 60_000);
    balancer = await TcpBalancer.listen(
      '127.0.0.1',
      options.ports.registry,
      registryBackends.map((port) => ({ host: '127.0.0.1', port })),
    );
    for (const registry of of('registry')) {
      supervisor.start(spec(registry));
      await supervisor.waitReady(registry.name, registry.readyUrl!, 120_000);
    }
    for (const agent of of('agent')) supervisor.start(spec(agent));
    for (const p of [...of('orchestrator'), ...of('console')]) {
      supervisor.start(spec(p));
      await supervisor.waitReady(p.name, p.readyUrl!, 180_000);
    }
    const summary = {
      registry: `http://127.0.0.1:${options.ports.registry} (balancer over ${registryBackends.join(', ')})`,
      dns: `127.0.0.1:${options.ports.dns} and :${options.ports.dns + 1}`,
      orchestrators: of('orchestrator').map((p) => p.url),
      console: of('console')[0]?.url,
      etcd: of('etcd').map((p) => p.url),
      agents: of('agent').length,
    };
    log.info(summary, 'Agent Reach is running (cluster shape)');
    if (process.stdout.isTTY)
      process.stdout.write(
        [
          '',
          'Agent Reach is running (cluster shape: 3 etcd members, 2 registries, 2 orchestrators on Postgres).',
          `  registry      ${summary.registry}`,
          `  DNS           ${summary.dns}`,
          `  orchestrators ${summary.orchestrators.join('  ')}`,
          `  console       ${summary.console}`,
          `  etcd          ${summary.etcd.join('  ')}`,
          '',
          'Try a failure: kill a registry, an etcd member or an orchestrator (its pid is in the log); it restarts.',
          'Ctrl-C stops everything.',
          '',
        ].join('\n'),
      );
  } catch (error) {
    log.error({ reason: (error as Error).message }, `start failed: ${(error as Error).message}`);
    await stop(1);
  }
  return new Promise<never>(() => {});
}
