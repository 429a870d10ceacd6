// `pnpm start`: the whole embedded system in the foreground — registry (in-process store + DNS
// responder), orchestrator (PGlite, offline planner), console, and demo agents. Ctrl-C stops all.
// Crashed processes are restarted with backoff; every line is a pino record (pretty in a terminal).
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { registryEnv } from './registry-env.js';
import { type ServiceSpec, Supervisor } from './supervisor.js';

const USAGE = `usage: pnpm start [options]
  --port-base N          registry N+1, orchestrator N+2, DNS N+53, console N+89
                         (default: registry 8701, orchestrator 8702, DNS 8053, console 18089)
  --registry-port N      --orchestrator-port N  --dns-port N  --console-port N  (override one)
  --data DIR             the embedded store and trace database (default ./data)
  --no-demo              no demo agents and no sample run
  --python-demo          the sample summarizer, translator and fallback-summarizer from the Python SDK
  --cluster              the production shape: 3 etcd members, 2 registries, 2 orchestrators on
                         Postgres (DATABASE_URL), console, demo agents (docs/cluster.md)
  -h, --help             this help`;

function usageError(message: string): never {
  process.stderr.write(`start: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let flags: ReturnType<typeof parseFlags>;
function parseFlags() {
  return parseArgs({
    args: process.argv.slice(2),
    options: {
      'port-base': { type: 'string' },
      'registry-port': { type: 'string' },
      'orchestrator-port': { type: 'string' },
      'dns-port': { type: 'string' },
      'console-port': { type: 'string' },
      data: { type: 'string' },
      'no-demo': { type: 'boolean' },
      'python-demo': { type: 'boolean' },
      cluster: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
}
try {
  flags = parseFlags();
} catch (error) {
  usageError((error as Error).message);
}
if (flags.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

/** A port flag's value, or `fallback`; a usage error for anything but 1–65535. */
function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    usageError(`--${name} must be a port (1–65535), got ${value}`);
  return n;
}

const base = flags['port-base'] === undefined ? null : port('port-base', flags['port-base'], 0);
if (base !== null && base + 89 > 65535)
  usageError(`--port-base ${base} leaves no room for the console (N+89)`);
const PORTS = {
  registry: port('registry-port', flags['registry-port'], base === null ? 8701 : base + 1),
  orchestrator: port('orchestrator-port', flags['orchestrator-port'], base === null ? 8702 : base + 2),
  dns: port('dns-port', flags['dns-port'], base === null ? 8053 : base + 53),
  console: port('console-port', flags['console-port'], base === null ? 18089 : base + 89),
};
const DATA = resolve(flags.data ?? 'data');
const DEMO = flags['no-demo'] !== true;
const REGISTRY = `http://127.0.0.1:${PORTS.registry}`;
const ORCHESTRATOR = `http://127.0.0.1:${PORTS.orchestrator}`;
const CONSOLE = `http://127.0.0.1:${PORTS.console}`;

if (flags.cluster) {
  const { runCluster } = await import('./cluster/run-cluster.js');
  const { clusterPorts } = await import('./cluster/cluster-shape.js');
  const pick = (name: 'registry' | 'orchestrator' | 'dns' | 'console') => {
    const value = flags[`${name}-port`];
    return value === undefined ? {} : { [name]: PORTS[name] };
  };
  await runCluster({
    ports: clusterPorts(base, {
      ...pick('registry'),
      ...pick('orchestrator'),
      ...pick('dns'),
      ...pick('console'),
    }),
    data: DATA,
    demo: DEMO,
    databaseUrl: process.env.DATABASE_URL,
  });
}

const CATALOG_AGENTS = ['planning', 'research', 'verifier', 'implementation', 'writing', 'synthesis'];
const SAMPLE_AGENTS = ['summarizer-v2', 'translator', 'fallback-summarizer'];

// The embedded defaults: no Postgres even when the shell has DATABASE_URL set; the ports and data
// directory above win over any REACH_* the shell has.
const {
  DATABASE_URL: _ignored,
  REACH_REGISTRY_URL: _r,
  REACH_ORCHESTRATOR_URL: _o,
  ...baseEnv
} = process.env;
process.env = {
  ...baseEnv,
  REACH_REGISTRY_LISTEN: `127.0.0.1:${PORTS.registry}`,
  REACH_DNS_LISTEN: `127.0.0.1:${PORTS.dns}`,
  REACH_DNS_SERVER: `127.0.0.1:${PORTS.dns}`,
  REACH_ORCHESTRATOR_LISTEN: `127.0.0.1:${PORTS.orchestrator}`,
  REACH_CONSOLE_LISTEN: `127.0.0.1:${PORTS.console}`,
  REACH_STORAGE_PATH: DATA,
};
mkdirSync(DATA, { recursive: true });

const agentEnv = { REACH_CONTROL_PLANE_URL: REGISTRY, HOST: '127.0.0.1', PORT: '0' };
const services: ServiceSpec[] = [
  {
    name: 'registry',
    args: ['apps/registry/src/main.ts'],
    env: registryEnv(process.env),
    readyUrl: `${REGISTRY}/readyz`,
    restart: true,
  },
  {
    name: 'orchestrator',
    args: ['apps/orchestrator/src/main.ts'],
    readyUrl: `${ORCHESTRATOR}/readyz`,
    // Its agent calls' outcomes go to the registry, so routing and the console see orchestrated traffic.
    env: { REACH_ORCHESTRATOR_REGISTRY_URL: REGISTRY },
    restart: true,
  },
  { name: 'console', args: ['apps/console/src/main.ts'], readyUrl: `${CONSOLE}/healthz`, restart: true },
];
const agents: ServiceSpec[] = DEMO
  ? [
      ...CATALOG_AGENTS.map((cap) => ({
        name: `agent:${cap}`,
        args: ['apps/agent-sdk/examples/catalog-agents/main.ts', cap],
        env: agentEnv,
        restart: true,
      })),
      ...SAMPLE_AGENTS.map((name) => ({
        name: `agent:${name}`,
        args: [`apps/agent-sdk/examples/${name}/main.ts`],
        // --python-demo: the seed's three samples from the Python SDK instead (seed article 4.1).
        ...(flags['python-demo']
          ? { command: ['python3', `apps/agent-sdk-python/examples/${name.replaceAll('-', '_')}.py`] }
          : {}),
        env: agentEnv,
        restart: true,
      })),
    ]
  : [];

// Agents deregister before the registry goes; the same order holds if this process dies unhandled.
const supervisor = new Supervisor([agents.map((a) => a.name), ['console', 'orchestrator'], ['registry']]);
const log = supervisor.logger;
let stopping: Promise<void> | undefined;
async function stop(code: number): Promise<never> {
  // A second signal (Ctrl-C reaches the launcher too, which passes it on) waits for the first stop.
  if (stopping === undefined) {
    log.info('stopping agents, then services…');
    stopping = supervisor.stopAll();
  }
  await stopping;
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

/** Resolves true when nothing listens on 127.0.0.1:`p` (TCP; the DNS port is checked for TCP too). */
function free(p: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(p, '127.0.0.1', () => server.close(() => done(true)));
  });
}

async function waitForAgents(count: number, timeoutMs = 60_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let seen = 0;
  log.info({ agents: count }, `waiting for ${count} demo agents to register`);
  while (performance.now() < deadline) {
    const res = await fetch(`${REGISTRY}/v1/agents`);
    seen = ((await res.json()) as { instances: unknown[] }).instances.length;
    if (seen >= count) return seen;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`only ${seen} of ${count} agents registered within ${timeoutMs} ms`);
}

/** One sample task through the whole path: DNS discovery, planning, layered execution, trace. */
async function sampleRun(task: string): Promise<string> {
  log.info({ task }, 'running a sample task');
  const res = await fetch(`${ORCHESTRATOR}/api/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: task }),
  });
  const run = (await res.json()) as { trace_id?: string; status?: string; code?: string; message?: string };
  return `${run.status ?? `${run.code}: ${run.message}`} (trace ${run.trace_id ?? '-'})`;
}

try {
  const taken = [];
  for (const [name, p] of Object.entries(PORTS)) if (!(await free(p))) taken.push(`${p} (${name})`);
  if (taken.length > 0)
    throw new Error(
      `port ${taken.join(', ')} already in use; pick others with --port-base N or --<service>-port N`,
    );
  const registry = services[0]!;
  supervisor.start(registry);
  await supervisor.waitReady(registry.name, registry.readyUrl!, 120_000);
  for (const agent of agents) supervisor.start(agent);
  for (const service of services.slice(1)) {
    supervisor.start(service);
    await supervisor.waitReady(service.name, service.readyUrl!, 180_000);
  }
  const registered = DEMO ? await waitForAgents(agents.length) : 0;
  const task = '设计一份生日派对策划，并列出风险和验收清单';
  const sample = DEMO ? await sampleRun(task) : null;
  const summary = {
    registry: REGISTRY,
    dns: `127.0.0.1:${PORTS.dns}`,
    orchestrator: ORCHESTRATOR,
    console: CONSOLE,
    data: DATA,
    agents: registered,
    ...(sample === null ? {} : { sample_run: sample }),
  };
  log.info(summary, 'Agent Reach is running');
  if (process.stdout.isTTY)
    process.stdout.write(
      [
        '',
        'Agent Reach is running (embedded defaults).',
        `  registry      ${REGISTRY}   (${registered} agents registered)`,
        `  DNS           127.0.0.1:${PORTS.dns}   e.g. dig @127.0.0.1 -p ${PORTS.dns} _writing._a2a._agents.agents.internal SVCB`,
        `  orchestrator  ${ORCHESTRATOR}`,
        `  console       ${CONSOLE}`,
        ...(sample === null ? [] : [`  sample run    "${task}" → ${sample}`]),
        '',
        'Crashed processes restart on their own. Ctrl-C stops everything.',
        '',
      ].join('\n'),
    );
} catch (error) {
  log.error({ reason: (error as Error).message }, `start failed: ${(error as Error).message}`);
  await stop(1);
}
