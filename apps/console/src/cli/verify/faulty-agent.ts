import { ReachError } from '@agent-reach/sdk/protocol';
import { AgentRuntime, type RuntimeRegistration } from '@agent-reach/sdk/runtime';

/** The agent `reach verify` registers for V3: it offers capabilities and fails every call. */
export const FAULTY_AGENT_NAME = 'reach-verify-faulty';

/** A running faulty agent; `stop()` deregisters it (the registry forgets its records at once). */
export interface FaultyAgent {
  registration: RuntimeRegistration;
  stop(): Promise<void>;
}

/**
 * Starts an SDK agent on loopback that serves `capabilities` at the highest declared priority (so it is
 * usually bound first) and answers every call with a retryable UNAVAILABLE after its ack: a local fault
 * the run must route around (seed V3).
 */
export async function startFaultyAgent(options: {
  registryUrl: string;
  registryToken: string | null;
  capabilities: readonly string[];
}): Promise<FaultyAgent> {
  const runtime = new AgentRuntime({
    agentName: FAULTY_AGENT_NAME,
    controlPlaneUrl: options.registryUrl,
    host: '127.0.0.1',
    port: 0,
    ...(options.registryToken === null ? {} : { registryToken: options.registryToken }),
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    declaration: {
      agent_name: FAULTY_AGENT_NAME,
      description: 'reach verify: fails every call (V3 fault injection)',
      domain: 'catalog_demo',
      priority: 100,
      idempotent: true,
      substitutable: true,
      capabilities: Object.fromEntries(options.capabilities.map((c) => [c, { serves: [c] }])),
    },
    handler: async () => {
      throw new ReachError('UNAVAILABLE', 'reach verify: injected failure (V3)');
    },
  });
  try {
    const registration = await runtime.start();
    return { registration, stop: () => runtime.stop() };
  } catch (error) {
    await runtime.stop().catch(() => undefined);
    throw error;
  }
}
