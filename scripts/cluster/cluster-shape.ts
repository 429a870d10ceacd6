import { join } from 'node:path';
import { registryEnv } from '../registry-env.js';
import { ETCD_SERVER_FLAGS } from './etcd-flags.js';

/** One process of the cluster shape: a node entry point (run through tsx) and its environment. */
export interface ClusterProcess {
  name: string;
  role: 'etcd' | 'registry' | 'orchestrator' | 'console' | 'agent';
  /** Arguments after `node --import tsx` (etcd runs through scripts/cluster/run-command.mjs). */
  args: string[];
  env: Record<string, string>;
  /** Answers 2xx once the process is ready. */
  readyUrl?: string;
  /** The HTTP or client URL it serves, the DNS port for registries. */
  url?: string;
  dnsPort?: number;
}

/** Where the cluster shape listens: the embedded defaults for what a user talks to, neighbours for the rest. */
export interface ClusterPorts {
  /** The registry "Service" (a TCP balancer over the replicas): what agents and the CLI use. */
  registry: number;
  /** The first orchestrator (the second is on the next port). */
  orchestrator: number;
  /** The first registry's DNS responder (the second is on the next port). */
  dns: number;
  console: number;
  /** The registry replicas' own HTTP ports. */
  registryReplicas: [number, number];
  /** etcd members' client and peer ports. */
  etcd: Array<{ client: number; peer: number }>;
}

/** The ports for `--port-base N` (or the defaults: 8701, 8702/8703, 8053/8054, 18089, 8711/8712, 8721…8726). */
export function clusterPorts(
  base: number | null,
  pick: Partial<Record<'registry' | 'orchestrator' | 'dns' | 'console', number>> = {},
): ClusterPorts {
  const b = base ?? 8700;
  return {
    registry: pick.registry ?? b + 1,
    orchestrator: pick.orchestrator ?? b + 2,
    dns: pick.dns ?? (base === null ? 8053 : base + 53),
    console: pick.console ?? (base === null ? 18089 : base + 89),
    registryReplicas: [b + 11, b + 12],
    etcd: [0, 1, 2].map((i) => ({ client: b + 21 + 2 * i, peer: b + 22 + 2 * i })),
  };
}

export interface ClusterOptions {
  ports: ClusterPorts;
  /** etcd members' data directories go under it. */
  data: string;
  /** The orchestrators' Postgres. */
  databaseUrl: string;
  /** The etcd binary. @default /usr/bin/etcd */
  etcdBin?: string;
  /** Demo agents (the embedded start's). @default true */
  demo?: boolean;
}

const CATALOG_AGENTS = ['planning', 'research', 'verifier', 'implementation', 'writing', 'synthesis'];
const SAMPLE_AGENTS = ['summarizer-v2', 'translator', 'fallback-summarizer'];
const local = (port: number) => `127.0.0.1:${port}`;

/**
 * The production shape on one machine (ARCHITECTURE 9): three etcd members, two registries on them
 * behind one address (as a Kubernetes Service puts them), two orchestrators on one Postgres, the
 * console and the demo agents. The registries' own DNS responders stand in for CoreDNS.
 */
export function clusterShape(options: ClusterOptions): {
  processes: ClusterProcess[];
  registryBackends: number[];
} {
  const { ports } = options;
  const etcdBin = options.etcdBin ?? '/usr/bin/etcd';
  const members = ports.etcd.map((p, i) => ({ name: `etcd-${i}`, ...p }));
  const initialCluster = members.map((m) => `${m.name}=http://${local(m.peer)}`).join(',');
  const endpoints = members.map((m) => `http://${local(m.client)}`).join(',');
  const etcd: ClusterProcess[] = members.map((m) => ({
    name: m.name,
    role: 'etcd',
    args: [
      'scripts/cluster/run-command.mjs',
      etcdBin,
      `--name=${m.name}`,
      `--data-dir=${join(options.data, m.name)}`,
      `--listen-client-urls=http://${local(m.client)}`,
      `--advertise-client-urls=http://${local(m.client)}`,
      `--listen-peer-urls=http://${local(m.peer)}`,
      `--initial-advertise-peer-urls=http://${local(m.peer)}`,
      `--initial-cluster=${initialCluster}`,
      '--initial-cluster-state=new',
      '--initial-cluster-token=agent-reach-cluster',
      '--logger=zap',
      '--log-level=warn',
      ...ETCD_SERVER_FLAGS,
    ],
    env: {},
    url: `http://${local(m.client)}`,
  }));
  const registryUrl = `http://${local(ports.registry)}`;
  const registries: ClusterProcess[] = ports.registryReplicas.map((port, i) => ({
    name: `registry-${i + 1}`,
    role: 'registry',
    args: ['apps/registry/src/main.ts'],
    env: {
      ...registryEnv(process.env),
      REACH_STORAGE_TYPE: 'etcd',
      REACH_ETCD_ENDPOINTS: endpoints,
      REACH_REGISTRY_LISTEN: local(port),
      REACH_DNS_LISTEN: local(ports.dns + i),
    },
    readyUrl: `http://${local(port)}/readyz`,
    url: `http://${local(port)}`,
    dnsPort: ports.dns + i,
  }));
  const orchestrators: ClusterProcess[] = [0, 1].map((i) => ({
    name: `orchestrator-${i + 1}`,
    role: 'orchestrator',
    args: ['apps/orchestrator/src/main.ts'],
    env: {
      DATABASE_URL: options.databaseUrl,
      REACH_STORAGE_PATH: join(options.data, `orchestrator-${i + 1}`),
      REACH_ORCHESTRATOR_LISTEN: local(ports.orchestrator + i),
      REACH_ORCHESTRATOR_REGISTRY_URL: registryUrl,
      // Each asks the DNS of "its" registry, as pods would ask CoreDNS.
      REACH_DNS_SERVER: local(ports.dns + i),
    },
    readyUrl: `http://${local(ports.orchestrator + i)}/readyz`,
    url: `http://${local(ports.orchestrator + i)}`,
  }));
  const consoleProcess: ClusterProcess = {
    name: 'console',
    role: 'console',
    args: ['apps/console/src/main.ts'],
    env: {
      REACH_CONSOLE_LISTEN: local(ports.console),
      REACH_REGISTRY_URL: registryUrl,
      REACH_ORCHESTRATOR_URL: `http://${local(ports.orchestrator)}`,
    },
    readyUrl: `http://${local(ports.console)}/readyz`,
    url: `http://${local(ports.console)}`,
  };
  const agentEnv = { REACH_CONTROL_PLANE_URL: registryUrl, HOST: '127.0.0.1', PORT: '0' };
  const agents: ClusterProcess[] =
    options.demo === false
      ? []
      : [
          ...CATALOG_AGENTS.map((cap) => ({
            name: `agent:${cap}`,
            role: 'agent' as const,
            args: ['apps/agent-sdk/examples/catalog-agents/main.ts', cap],
            env: agentEnv,
          })),
          ...SAMPLE_AGENTS.map((name) => ({
            name: `agent:${name}`,
            role: 'agent' as const,
            args: [`apps/agent-sdk/examples/${name}/main.ts`],
            env: agentEnv,
          })),
        ];
  return {
    processes: [...etcd, ...registries, ...orchestrators, consoleProcess, ...agents],
    registryBackends: [...ports.registryReplicas],
  };
}
