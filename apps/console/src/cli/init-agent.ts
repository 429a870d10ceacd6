import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentName, CapabilityId, type DeclarationInput } from '@agent-reach/sdk/protocol';
import { UsageError } from './usage-error.js';

/** The SDK's declaration JSON Schema, which the written declaration points editors at. */
const SCHEMA = fileURLToPath(new URL('../../../agent-sdk/declaration.schema.json', import.meta.url));
/** Where skeletons go by default: beside the SDK's samples, where `@agent-reach/sdk` resolves. */
export const DEFAULT_AGENTS_DIR = fileURLToPath(new URL('../../../agent-sdk/examples', import.meta.url));

/** What `reach init agent` writes. */
export interface InitAgentOptions {
  name: string;
  /** @default the name with `-` as `_` */
  capability?: string;
  description?: string;
  /** The parent directory; the agent gets `<dir>/<name>/`. @default DEFAULT_AGENTS_DIR */
  dir?: string;
  force?: boolean;
}

function mainTs(name: string, capability: string): string {
  return `// ${name}: an Agent Reach agent serving \`${capability}\`. Run it against a registry:
//   REACH_CONTROL_PLANE_URL=http://127.0.0.1:8701 node --import tsx main.ts
import { fileURLToPath } from 'node:url';
import { AgentRuntime, type InvokeContext } from '@agent-reach/sdk/runtime';

const runtime = new AgentRuntime({
  agentName: '${name}',
  controlPlaneUrl: process.env.REACH_CONTROL_PLANE_URL ?? 'http://127.0.0.1:8701',
  capabilityFile: fileURLToPath(new URL('./declaration.json', import.meta.url)),
  host: process.env.HOST ?? '127.0.0.1',
  port: Number(process.env.PORT ?? 0),
  registryToken: process.env.REACH_REGISTRY_TOKEN,
});

/** The work: the orchestrator sends {task, purpose}; a ReachClient caller sends whatever it likes. */
function handle(ctx: InvokeContext) {
  const input = ctx.input as { task?: unknown; text?: unknown } | string;
  const text = typeof input === 'string' ? input : String(input?.task ?? input?.text ?? '');
  return { text: \`${name} (${capability}) got: \${text}\` };
}

runtime.installSignalHandlers();
const registration = await runtime.start(handle);
process.stdout.write(\`\${JSON.stringify({ ready: registration })}\\n\`);
`;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Writes a runnable agent skeleton: `main.ts` (AgentRuntime with a handler) and `declaration.json`
 * (pointing at the declaration JSON Schema). Refuses to overwrite unless `force`. Returns the files.
 */
export async function initAgent(options: InitAgentOptions): Promise<{ dir: string; files: string[] }> {
  if (!AgentName.safeParse(options.name).success)
    throw new UsageError(
      `agent name ${JSON.stringify(options.name)}: a DNS host label, [a-z][a-z0-9-]*, 2-48 chars`,
    );
  const capability = options.capability ?? options.name.replaceAll('-', '_');
  if (!CapabilityId.safeParse(capability).success)
    throw new UsageError(`capability ${JSON.stringify(capability)}: must match [a-z][a-z0-9_]{0,39}`);
  const dir = resolve(options.dir ?? DEFAULT_AGENTS_DIR, options.name);
  const files = [join(dir, 'main.ts'), join(dir, 'declaration.json')];
  if (!options.force) {
    for (const f of files)
      if (await exists(f)) throw new UsageError(`${f} exists; pass --force to overwrite it`);
  }
  const words = capability.replaceAll('_', ' ');
  const declaration: DeclarationInput & { $schema: string } = {
    $schema: relative(dir, SCHEMA),
    agent_name: options.name,
    version: '1',
    description: options.description ?? `${options.name}: ${words}.`,
    domain: 'custom',
    capabilities: {
      [capability]: {
        description: options.description ?? `${words[0]!.toUpperCase()}${words.slice(1)}.`,
        tags: [words],
        examples: [],
        input: ['task'],
        output: ['text'],
      },
    },
    idempotent: true,
  };
  await mkdir(dirname(files[0]!), { recursive: true });
  await writeFile(files[0]!, mainTs(options.name, capability));
  await writeFile(files[1]!, `${JSON.stringify(declaration, null, 2)}\n`);
  return { dir, files };
}
