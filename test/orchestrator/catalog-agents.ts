import { join } from 'node:path';
import { AgentProcess, type AgentReady } from '../harness/agent-process.js';
import { REPO_ROOT } from '../harness/registry-process.js';

/** The catalog demo agents' one entry point. */
export const CATALOG_MAIN = join(REPO_ROOT, 'apps/agent-sdk/examples/catalog-agents/main.ts');

/** The six demo agents covering the seven catalog capabilities, by the capability that names them. */
export const CATALOG_AGENT_KEYS = [
  'planning',
  'research',
  'security_review',
  'implementation',
  'writing',
  'synthesis',
] as const;

/** A running catalog agent and where it serves. */
export interface CatalogAgent {
  key: string;
  process: AgentProcess;
  ready: AgentReady;
  /** `127.0.0.1:<port>`, as DNS publishes it. */
  endpoint: string;
}

/** Starts catalog agents (one process each) and waits until the registry lists them. */
export async function startCatalogAgents(
  registryUrl: string,
  specs: Array<{ key: string; env?: Record<string, string> }>,
  commonEnv: Record<string, string> = {},
): Promise<CatalogAgent[]> {
  const processes = specs.map((spec) => ({
    key: spec.key,
    process: AgentProcess.spawn({
      script: CATALOG_MAIN,
      registryUrl,
      env: { CATALOG_AGENT: spec.key, ...commonEnv, ...spec.env },
    }),
  }));
  try {
    return await Promise.all(
      processes.map(async ({ key, process }) => {
        const { ready } = await process.registered();
        return { key, process, ready, endpoint: new URL(ready.url).host };
      }),
    );
  } catch (error) {
    // The caller never gets the processes when one fails to start: stop them all here, or they
    // outlive the test (retrying a registry that is gone) and load every test after it.
    await Promise.all(processes.map(({ process }) => process.kill()));
    throw error;
  }
}
