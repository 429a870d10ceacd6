// `pnpm start`: the whole embedded system in the foreground — registry (in-process store + DNS
// responder), orchestrator (PGlite, offline planner), console, and demo agents. Ctrl-C stops all.
import { mkdirSync } from 'node:fs';
import { type ServiceSpec, Supervisor } from './supervisor.js';

const REGISTRY = 'http://127.0.0.1:8701';
const ORCHESTRATOR = 'http://127.0.0.1:8702';
const CONSOLE = 'http://127.0.0.1:18089';

const CATALOG_AGENTS = ['planning', 'research', 'verifier', 'implementation', 'writing', 'synthesis'];
const SAMPLE_AGENTS = ['summarizer-v2', 'translator', 'fallback-summarizer'];

// The embedded defaults: no Postgres even when the shell has DATABASE_URL set.
const { DATABASE_URL: _ignored, ...baseEnv } = process.env;
process.env = baseEnv;
mkdirSync('data', { recursive: true });

const agentEnv = { REACH_CONTROL_PLANE_URL: REGISTRY, HOST: '127.0.0.1', PORT: '0' };
const services: ServiceSpec[] = [
  { name: 'registry', args: ['apps/registry/src/main.ts'], readyUrl: `${REGISTRY}/readyz` },
  {
    name: 'orchestrator',
    args: ['apps/orchestrator/src/main.ts'],
    readyUrl: `${ORCHESTRATOR}/readyz`,
    // Its agent calls' outcomes go to the registry, so routing and the console see orchestrated traffic.
    env: { REACH_ORCHESTRATOR_REGISTRY_URL: REGISTRY },
  },
  { name: 'console', args: ['apps/console/src/main.ts'], readyUrl: `${CONSOLE}/` },
];
const agents: ServiceSpec[] = [
  ...CATALOG_AGENTS.map((cap) => ({
    name: `agent:${cap}`,
    args: ['apps/agent-sdk/examples/catalog-agents/main.ts', cap],
    env: agentEnv,
  })),
  ...SAMPLE_AGENTS.map((name) => ({
    name: `agent:${name}`,
    args: [`apps/agent-sdk/examples/${name}/main.ts`],
    env: agentEnv,
  })),
];

// Agents deregister before the registry goes; the same order holds if this process dies unhandled.
const supervisor = new Supervisor([agents.map((a) => a.name), ['console', 'orchestrator'], ['registry']]);
let stopping: Promise<void> | undefined;
async function stop(code: number): Promise<never> {
  // A second signal (Ctrl-C reaches the launcher too, which passes it on) waits for the first stop.
  if (stopping === undefined) {
    process.stdout.write('\nstopping agents, then services…\n');
    stopping = supervisor.stopAll();
  }
  await stopping;
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

async function waitForAgents(count: number, timeoutMs = 60_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let seen = 0;
  while (performance.now() < deadline) {
    const res = await fetch(`${REGISTRY}/v1/agents`);
    seen = ((await res.json()) as { instances: unknown[] }).instances.length;
    if (seen >= count) return seen;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`only ${seen} of ${count} agents registered within ${timeoutMs} ms`);
}

try {
  const registry = services[0]!;
  supervisor.start(registry);
  await supervisor.waitReady(registry.name, registry.readyUrl!);
  for (const agent of agents) supervisor.start(agent);
  for (const service of services.slice(1)) {
    supervisor.start(service);
    await supervisor.waitReady(service.name, service.readyUrl!, 180_000);
  }
  const registered = await waitForAgents(agents.length);

  // One sample task through the whole path: DNS discovery, planning, layered execution, trace.
  const task = '设计一份生日派对策划，并列出风险和验收清单';
  const res = await fetch(`${ORCHESTRATOR}/api/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: task }),
  });
  const run = (await res.json()) as {
    trace_id?: string;
    status?: string;
    duration_ms?: number;
    code?: string;
    message?: string;
  };
  process.stdout.write(
    [
      '',
      'Agent Reach is running (embedded defaults).',
      `  registry      ${REGISTRY}   (${registered} agents registered)`,
      '  DNS           127.0.0.1:8053   e.g. dig @127.0.0.1 -p 8053 _writing._agents.agents.internal SVCB',
      `  orchestrator  ${ORCHESTRATOR}`,
      `  console       ${CONSOLE}`,
      `  sample run    "${task}" → ${run.status ?? `${run.code}: ${run.message}`} (trace ${run.trace_id ?? '-'})`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(`start failed: ${(error as Error).message}\n`);
  await stop(1);
}
