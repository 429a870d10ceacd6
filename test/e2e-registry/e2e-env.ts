import { afterAll, beforeAll } from 'vitest';
import { AgentProcess, type AgentProcessOptions } from '../harness/agent-process.js';
import { RegistryProcess } from '../harness/registry-process.js';
import { registryConfig, TOKENS } from './e2e-config.js';
import { RegistryApi } from './registry-api.js';
import type { StoreBackend } from './stores.js';

/** One store, one registry process on it, and the agents a scenario starts. */
export interface E2eEnv {
  store: StoreBackend;
  registry: RegistryProcess;
  api: RegistryApi;
  /** Starts an SDK agent against the registry (with the all-capabilities token); killed after the test. */
  spawnAgent(script: string, options?: Partial<AgentProcessOptions>): AgentProcess;
  /** SIGTERMs every agent still running (they deregister), so the next scenario starts from an empty list. */
  stopAgents(): Promise<void>;
}

/** Opens the store and starts the registry (with `registryEnv`, if given) before the suite; stops both after it. */
export function useE2eEnv(
  open: () => Promise<StoreBackend>,
  registryEnv: Record<string, string> = {},
): () => E2eEnv {
  let env: E2eEnv | undefined;
  const agents: AgentProcess[] = [];
  beforeAll(async () => {
    const store = await open();
    try {
      const registry = await RegistryProcess.start({
        config: registryConfig(store.storage),
        env: registryEnv,
      });
      env = {
        store,
        registry,
        api: new RegistryApi(() => registry.url),
        spawnAgent(script, options = {}) {
          const agent = AgentProcess.spawn({
            script,
            registryUrl: registry.url,
            registryToken: TOKENS.agents,
            ...options,
          });
          agents.push(agent);
          return agent;
        },
        async stopAgents() {
          await Promise.all(agents.splice(0).map((agent) => agent.term()));
        },
      };
    } catch (error) {
      await store.close();
      throw error;
    }
  });
  afterAll(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.kill()));
    await env?.registry.dispose();
    await env?.store.close();
  });
  return () => {
    if (!env) throw new Error('the e2e environment is not started (beforeAll failed?)');
    return env;
  };
}
