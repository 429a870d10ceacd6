import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteResponse } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll } from 'vitest';
import { AgentProcess } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { RegistryProcess } from '../harness/registry-process.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const WORKER = here('./worker-agent.ts');
const ROGUES = here('./rogue-agents.ts');

/** Warm-up short enough to watch a whole ramp within a test. */
export const WARMUP_MS = 4_000;

/** The rogue process's instances by misbehaviour. */
export type RogueIds = Record<
  'connect' | 'noack' | 'silent' | '5xx' | '429' | 'classifier-a' | 'classifier-b',
  string
>;

/** A real registry, two real SDK worker agents, a crashing SDK agent and the rogue agents. */
export interface RoutingEnv {
  registry: RegistryProcess;
  workers: AgentProcess[];
  workerIds: string[];
  crasher: AgentProcess;
  crasherId: string;
  rogues: RogueIds;
  /** `POST /v1/route` on the registry. */
  route(query: Record<string, unknown>): Promise<RouteResponse>;
  /** The request ids a worker's handler saw. */
  invoked(worker: AgentProcess): string[];
  /** Registers an instance over the HTTP API (it is never called); returns its id and lease token. */
  register(agent: string, operations: string[], port?: number): Promise<{ id: string; token: string }>;
}

const CARD_SHA = createHash('sha256').update('routing test card').digest('base64url');

/** Starts everything before the suite and stops it after. */
export function useRoutingEnv(): () => RoutingEnv {
  let env: RoutingEnv | undefined;
  let dir = '';
  const processes: AgentProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-routing-'));
    const registry = await RegistryProcess.start({
      config: {
        // A generous lease: agents spawned together on a busy machine may beat late at first.
        control_plane: {
          heartbeat_interval: '2s',
          heartbeat_timeout: '10s',
          warmup: `${WARMUP_MS}ms`,
        },
        storage: { type: 'embedded', path: dir },
      },
    });
    const spawn = (script: string, env: Record<string, string> = {}) => {
      const agent = AgentProcess.spawn({ script, registryUrl: registry.url, env });
      processes.push(agent);
      return agent;
    };
    const workers = [spawn(WORKER), spawn(WORKER)];
    const crasher = spawn(WORKER, {
      AGENT_NAME: 'crasher',
      OPERATIONS: 'probe_crash',
      PRIORITY: '100',
      CRASH: '1',
    });
    const rogueProcess = spawn(ROGUES);
    const rogues = await pollUntil(
      () => {
        const line = rogueProcess.stdout.lines.find((l) => l.startsWith('{"ready"'));
        return line ? (JSON.parse(line) as { ready: RogueIds }).ready : undefined;
      },
      60_000,
      () => `rogue agents not ready:\n${rogueProcess.stderr.tail()}`,
    );
    // The ids once each agent heartbeats (an agent re-registers under a new id if its first lease ran out).
    const views = await Promise.all([...workers, crasher].map((agent) => agent.heartbeating(60_000)));
    // Let every instance finish its warm-up, so shares depend on health and success only.
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    env = {
      registry,
      workers,
      workerIds: views.slice(0, 2).map((view) => view.instance_id),
      crasher,
      crasherId: views[2]!.instance_id,
      rogues,
      async route(query) {
        const res = await fetch(`${registry.url}/v1/route`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(query),
        });
        if (res.status !== 200) throw new Error(`route: ${res.status} ${await res.text()}`);
        return (await res.json()) as RouteResponse;
      },
      invoked(worker) {
        return worker.stdout
          .json()
          .flatMap((line) => (line.invoked ? [(line.invoked as { request_id: string }).request_id] : []));
      },
      async register(agent, operations, port = 9) {
        const res = await fetch(`${registry.url}/v1/agents`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            declaration: {
              agent_name: agent,
              domain: 'text_processing',
              capabilities: Object.fromEntries(operations.map((op) => [op, {}])),
            },
            endpoint: { host: '127.0.0.1', port },
            card_sha256: CARD_SHA,
          }),
        });
        if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
        const body = (await res.json()) as { instance_id: string; lease_token: string };
        return { id: body.instance_id, token: body.lease_token };
      },
    };
  });
  afterAll(async () => {
    await Promise.all(processes.map((agent) => agent.kill()));
    await env?.registry.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (!env) throw new Error('the routing environment is not started (beforeAll failed?)');
    return env;
  };
}
