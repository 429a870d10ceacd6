import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentProcess } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { REPO_ROOT, RegistryProcess } from '../harness/registry-process.js';
import { FakeModelServer } from './fake-model-server.js';
import { OrchestratorProcess } from './orchestrator-process.js';
import { type ApiEvent, OrchestratorApi, type TraceDetailJson } from './system.js';

const COUNTING_AGENT = join(REPO_ROOT, 'test/orchestrator/counting-agent.ts');

const node = (id: string, capability: string, depends_on: string[] = []) => ({
  id,
  capability,
  depends_on,
  parallel_group: `g-${id}`,
  purpose: `${capability} step`,
});

/** The six-node plan of the durable-run tests: four layers, the second one slow. */
export const SIX_NODE_PLAN = {
  intent: 'six nodes',
  nodes: [
    node('n1', 'research'),
    node('n2', 'planning'),
    node('n3', 'security_review', ['n1', 'n2']),
    node('n4', 'validation', ['n1', 'n2']),
    node('n5', 'writing', ['n3', 'n4']),
    node('n6', 'synthesis', ['n1', 'n2', 'n3', 'n4', 'n5']),
  ],
  final_node: 'n6',
  reasoning: 'two parallel layers, then the deliverable and the summary',
};

/** A counting agent: its calls are read back from its `{"invoked"}` lines. */
export interface CountingAgent {
  name: string;
  process: AgentProcess;
  /** Handler starts per request_id. */
  calls(): Map<string, number>;
  /** Handler runs that finished (were not cancelled) per request_id. */
  answered(): Map<string, number>;
}

/** Registry, fake model and counting agents, for orchestrators a test starts and kills itself. */
export class DurableSystem {
  readonly agents: CountingAgent[] = [];
  readonly orchestrators: OrchestratorProcess[] = [];
  private constructor(
    readonly registry: RegistryProcess,
    readonly model: FakeModelServer,
    private readonly token: string,
    private readonly dir: string,
  ) {}

  static async start(): Promise<DurableSystem> {
    const dir = await mkdtemp(join(tmpdir(), 'reach-durable-'));
    const token = randomBytes(16).toString('hex');
    const model = new FakeModelServer(() => SIX_NODE_PLAN);
    await model.start();
    const registry = await RegistryProcess.start({
      config: {
        storage: { type: 'embedded', path: join(dir, 'registry') },
        control_plane: { tokens: [{ name: 'durable', token, capabilities: ['*'] }] },
      },
    });
    return new DurableSystem(registry, model, token, dir);
  }

  /** Starts counting agents and waits until the registry lists each. */
  async addAgents(
    specs: Array<{ name: string; caps: string[]; delays?: Record<string, number>; idempotent?: boolean }>,
  ): Promise<CountingAgent[]> {
    const started = specs.map((spec) => {
      const process = AgentProcess.spawn({
        script: COUNTING_AGENT,
        registryUrl: this.registry.url,
        registryToken: this.token,
        env: {
          AGENT_NAME: spec.name,
          CAPS: spec.caps.join(','),
          DELAYS: JSON.stringify(spec.delays ?? {}),
          IDEMPOTENT: spec.idempotent === false ? '0' : '1',
        },
      });
      const count = (key: 'invoked' | 'answered') => {
        const counts = new Map<string, number>();
        for (const line of process.stdout.json()) {
          const id = (line[key] as { request_id?: string } | undefined)?.request_id;
          if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
        }
        return counts;
      };
      return { name: spec.name, process, calls: () => count('invoked'), answered: () => count('answered') };
    });
    await Promise.all(started.map((a) => a.process.registered()));
    this.agents.push(...started);
    return started;
  }

  /** An orchestrator process on `databaseUrl` (PGlite in `dir` when not given). */
  async orchestrator(options: {
    databaseUrl?: string;
    dir?: string;
    orchestrator?: Record<string, unknown>;
  }): Promise<{ proc: OrchestratorProcess; api: OrchestratorApi }> {
    const proc = await OrchestratorProcess.start({
      dnsPort: this.registry.dnsPort,
      ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
      ...(options.dir === undefined ? {} : { dir: options.dir }),
      config: {
        orchestrator: {
          providers: [{ name: 'fake', base_url: this.model.baseUrl, model: 'fake-planner' }],
          ...options.orchestrator,
        },
      },
    });
    this.orchestrators.push(proc);
    return { proc, api: new OrchestratorApi(proc.url) };
  }

  /** Every call the agents saw for `requestId`. */
  callsFor(requestId: string): number {
    return this.agents.reduce((sum, a) => sum + (a.calls().get(requestId) ?? 0), 0);
  }

  /** Every finished handler run the agents had for `requestId`. */
  answeredFor(requestId: string): number {
    return this.agents.reduce((sum, a) => sum + (a.answered().get(requestId) ?? 0), 0);
  }

  /** Waits until every agent together has seen each of `requestIds`. */
  async waitForCalls(requestIds: readonly string[], timeoutMs = 30_000): Promise<void> {
    await pollUntil(
      () => (requestIds.every((id) => this.callsFor(id) > 0) ? true : undefined),
      timeoutMs,
      () => `agents never saw ${requestIds.join(', ')}`,
    );
  }

  async stop(): Promise<void> {
    for (const o of this.orchestrators) await o.kill().catch(() => undefined);
    await Promise.all(this.agents.map((a) => a.process.kill().catch(() => undefined)));
    await this.registry.dispose().catch(() => undefined);
    await this.model.stop().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
    for (const o of this.orchestrators) await rm(o.dir, { recursive: true, force: true });
  }
}

/** Polls a trace until it is no longer running. */
export async function finishedTrace(
  api: OrchestratorApi,
  id: string,
  timeoutMs = 60_000,
): Promise<TraceDetailJson> {
  return pollUntil(
    async () => {
      const detail = await api.trace(id).catch(() => undefined);
      return detail !== undefined && detail.trace.status !== 'running' ? detail : undefined;
    },
    timeoutMs,
    () => `trace ${id} still running after ${timeoutMs} ms`,
  );
}

/** Polls a trace until `ready` holds for its record. */
export async function recordShows(
  api: OrchestratorApi,
  id: string,
  ready: (detail: TraceDetailJson) => boolean,
  timeoutMs = 30_000,
): Promise<TraceDetailJson> {
  return pollUntil(
    async () => {
      const detail = await api.trace(id).catch(() => undefined);
      return detail !== undefined && ready(detail) ? detail : undefined;
    },
    timeoutMs,
    () => `trace ${id}: the record never reached the expected state`,
  );
}

/** The status of each node in a trace's record, and whether its call is recorded as in flight. */
export function nodeStates(detail: TraceDetailJson): Record<string, string> {
  return Object.fromEntries(
    detail.nodes.map((n) => [n.node_id, n.in_flight ? `${n.status}+in_flight` : n.status]),
  );
}

/** The event of `type` in a trace (the first one). */
export function eventOf(detail: TraceDetailJson, type: string): ApiEvent | undefined {
  return detail.events.find((e) => e.type === type);
}
