import { type ReadyChild, spawnReady } from './ready-child.js';

/** Which instant agents to run: `replicas` of each capability, optionally with its skill text. */
export interface FleetSpec {
  registryUrl: string;
  groups: Array<{
    capability: string;
    replicas: number;
    skill?: { description: string; tags: string[]; examples: string[] };
  }>;
}

/** What the fleet process reports once every agent is registered. */
export interface FleetReady {
  agents: number;
  /** `GET <controlUrl>/timings?prefix=…` drains the agent-side milliseconds of matching request ids. */
  controlUrl: string;
}

/** A process of instant agents (own ports, SDK-built cards, registered); see `agent-fleet-main.ts`. */
export interface AgentFleet extends ReadyChild<FleetReady> {
  /** Agent-side milliseconds per request id starting with `prefix` (each is returned once). */
  timings(prefix: string): Promise<Record<string, number>>;
  /** Closes every connection callers hold to the agents. */
  dropConnections(): Promise<void>;
}

/** Starts the fleet and waits until all its agents are registered. */
export async function startAgentFleet(spec: FleetSpec): Promise<AgentFleet> {
  const child = await spawnReady<FleetReady>(
    'bench/lib/agent-fleet-main.ts',
    { FLEET_SPEC: JSON.stringify(spec) },
    120_000,
  );
  return {
    ...child,
    timings: async (prefix) => {
      const res = await fetch(`${child.ready.controlUrl}/timings?prefix=${encodeURIComponent(prefix)}`);
      return (await res.json()) as Record<string, number>;
    },
    dropConnections: async () => {
      await (await fetch(`${child.ready.controlUrl}/drop`)).arrayBuffer();
    },
  };
}
