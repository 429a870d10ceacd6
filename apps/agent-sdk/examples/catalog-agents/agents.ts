import { fileURLToPath } from 'node:url';

/** One demo agent: its name, declaration file and the catalog capabilities it serves. */
export interface CatalogAgentSpec {
  agentName: string;
  declarationFile: string;
  serves: readonly string[];
}

const file = (name: string) => fileURLToPath(new URL(`./declarations/${name}.json`, import.meta.url));

/** The six demo agents covering the seven catalog capabilities (the verifier serves two, as in seed 2.2). */
export const CATALOG_AGENTS: readonly CatalogAgentSpec[] = [
  { agentName: 'planner-agent', declarationFile: file('planner'), serves: ['planning'] },
  { agentName: 'researcher-agent', declarationFile: file('researcher'), serves: ['research'] },
  {
    agentName: 'verifier-agent',
    declarationFile: file('verifier'),
    serves: ['security_review', 'validation'],
  },
  { agentName: 'coder-agent', declarationFile: file('coder'), serves: ['implementation'] },
  { agentName: 'writer-agent', declarationFile: file('writer'), serves: ['writing'] },
  { agentName: 'synthesizer-agent', declarationFile: file('synthesizer'), serves: ['synthesis'] },
];

/** Finds the agent for a capability id (`writing`) or an agent name (`writer-agent`, `writer`). */
export function resolveCatalogAgent(which: string | undefined): CatalogAgentSpec {
  const key = (which ?? '').trim().toLowerCase();
  const found = CATALOG_AGENTS.find(
    (a) => a.serves.includes(key) || a.agentName === key || a.agentName === `${key}-agent`,
  );
  if (found === undefined) {
    const choices = CATALOG_AGENTS.flatMap((a) => a.serves).join(', ');
    throw new Error(`unknown catalog agent ${JSON.stringify(which ?? '')}; give one of: ${choices}`);
  }
  return found;
}
