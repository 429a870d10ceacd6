import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SseMessage } from '@agent-reach/sdk/http';
import { collectSse } from '@agent-reach/sdk/testing';
import { RegistryProcess } from '../harness/registry-process.js';
import { type CatalogAgent, startCatalogAgents } from './catalog-agents.js';
import { OrchestratorProcess, type OrchestratorProcessOptions } from './orchestrator-process.js';

/** The embedded system as separate processes: registry (+ DNS responder), catalog agents, orchestrator. */
export interface System {
  registry: RegistryProcess;
  agents: CatalogAgent[];
  orchestrator: OrchestratorProcess;
  api: OrchestratorApi;
  /** The registry token the agents register with. */
  token: string;
  stop(): Promise<void>;
}

/** Starts the registry, the given agents and the orchestrator, each a real process. */
export async function startSystem(options: {
  agents: Array<{ key: string; env?: Record<string, string> }>;
  agentEnv?: Record<string, string>;
  orchestrator?: Omit<OrchestratorProcessOptions, 'dnsPort'>;
  /** Sets the orchestrator's `registry_url` to this registry, so it reports its calls' outcomes. */
  reportOutcomes?: boolean;
}): Promise<System> {
  const dir = await mkdtemp(join(tmpdir(), 'reach-system-'));
  // A token of its own: agents of another run that find this registry on a reused port cannot join it.
  const token = randomBytes(16).toString('hex');
  const registry = await RegistryProcess.start({
    config: {
      storage: { type: 'embedded', path: join(dir, 'registry') },
      control_plane: { tokens: [{ name: 'system', token, capabilities: ['*'] }] },
    },
  });
  const cleanup: Array<() => Promise<unknown>> = [
    () => registry.dispose(),
    () => rm(dir, { recursive: true, force: true }),
  ];
  try {
    const agents = await startCatalogAgents(registry.url, options.agents, {
      ...options.agentEnv,
      REACH_REGISTRY_TOKEN: token,
    });
    cleanup.unshift(() => Promise.all(agents.map((a) => a.process.term().catch(() => undefined))));
    const config = options.orchestrator?.config ?? {};
    const orchestrator = await OrchestratorProcess.start({
      ...options.orchestrator,
      ...(options.reportOutcomes
        ? {
            config: {
              ...config,
              // Reporting outcomes needs a token with the report_outcomes right (the system's has every right).
              orchestrator: {
                ...(config.orchestrator ?? {}),
                registry_url: registry.url,
                registry_token: token,
              },
            },
          }
        : {}),
      dnsPort: registry.dnsPort,
    });
    cleanup.unshift(() => orchestrator.stop());
    return {
      registry,
      agents,
      orchestrator,
      api: new OrchestratorApi(orchestrator.url),
      token,
      stop: async () => {
        for (const step of cleanup) await step().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const step of cleanup) await step().catch(() => undefined);
    throw error;
  }
}

/** A trace event as the API returns it. */
export interface ApiEvent {
  trace_id: string;
  seq: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/** The orchestrator's HTTP API for tests. */
export class OrchestratorApi {
  constructor(
    readonly url: string,
    private readonly token?: string,
  ) {}

  private headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
    };
  }

  async start(text: string): Promise<string> {
    const res = await fetch(`${this.url}/api/start`, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ text }),
    });
    const body = (await res.json()) as { trace_id: string };
    if (res.status !== 202) throw new Error(`start failed: ${res.status} ${JSON.stringify(body)}`);
    return body.trace_id;
  }

  async run(
    text: string,
  ): Promise<{ trace_id: string; status: string; summary: string; duration_ms: number }> {
    const res = await fetch(`${this.url}/api/run`, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ text }),
    });
    if (res.status !== 200) throw new Error(`run failed: ${res.status} ${await res.text()}`);
    return (await res.json()) as { trace_id: string; status: string; summary: string; duration_ms: number };
  }

  async trace(id: string): Promise<TraceDetailJson> {
    const res = await fetch(`${this.url}/api/traces/${id}`);
    if (res.status !== 200) throw new Error(`trace ${id}: ${res.status} ${await res.text()}`);
    return (await res.json()) as TraceDetailJson;
  }

  async discovery(): Promise<DiscoveryJson> {
    return (await (await fetch(`${this.url}/api/discovery`)).json()) as DiscoveryJson;
  }

  /** Follows the SSE stream (from `after`) until `stop`; returns the messages read. */
  async stream(
    id: string,
    options: { after?: number; stop?: (m: SseMessage, all: SseMessage[]) => boolean } = {},
  ): Promise<SseMessage[]> {
    const res = await fetch(`${this.url}/api/stream/${id}`, {
      headers: options.after === undefined ? {} : { 'last-event-id': String(options.after) },
    });
    if (res.status !== 200 || res.body === null)
      throw new Error(`stream ${id}: ${res.status} ${await res.text()}`);
    return collectSse(res.body, options.stop);
  }

  /** Every event of a run, read live from the stream until `done`. */
  async events(id: string): Promise<ApiEvent[]> {
    return (await this.stream(id))
      .filter((m) => m.event === 'message')
      .map((m) => JSON.parse(m.data) as ApiEvent);
  }
}

/** `GET /api/traces/{id}` as JSON. */
export interface TraceDetailJson {
  trace: {
    id: string;
    status: string;
    summary: string | null;
    task: string;
    duration_ms: number | null;
    last_seq: number;
  };
  plan: {
    normalized: {
      nodes: Array<{ id: string; capability: string; depends_on: string[] }>;
      final_node: string;
    };
    levels: string[][];
    warnings: string[];
    degraded: boolean;
  } | null;
  nodes: Array<{
    node_id: string;
    capability: string;
    status: string;
    agent: string | null;
    endpoint: string | null;
    attempts: number;
    input_context: string | null;
    output: string | null;
    binding: Record<string, unknown> | null;
    in_flight?: { instance: string; agent: string; attempt: number; idempotent: boolean } | null;
  }>;
  events: ApiEvent[];
}

/** `GET /api/discovery` as JSON. */
export interface DiscoveryJson {
  capabilities: Record<
    string,
    {
      source: string;
      available: boolean;
      reason: string | null;
      candidates: Array<{ endpoint: string; agent_name: string; health: string }>;
      failed: Array<{ instance: string; stage: string; reason: string }>;
      description: string;
      described_by: string;
      tags: string[];
      examples: string[];
      builtin: boolean;
      in_index: boolean;
      providers: string[];
    }
  >;
  index?: { ok: boolean; capabilities: string[] };
  stats: {
    dns_queries: number;
    dns_tcp_fallbacks: number;
    card_fetches: number;
    card_cache_hits: number;
    card_failures: number;
    health_probes: number;
  };
}
