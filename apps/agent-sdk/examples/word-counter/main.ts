// word-counter: a complete agent with a capability the built-in catalog does not have. Run:
//   pnpm --filter @agent-reach/sdk exec tsx examples/word-counter/main.ts
import { fileURLToPath } from 'node:url';
import { AgentRuntime } from '@agent-reach/sdk/runtime';
import { runSample, sampleEnv } from '../sample-env.js';
import { countWords, textOf } from './count.js';

const env = sampleEnv();
const runtime = new AgentRuntime({
  agentName: 'word-counter',
  controlPlaneUrl: env.controlPlaneUrl,
  capabilityFile: fileURLToPath(new URL('./declaration.json', import.meta.url)),
  host: env.host,
  port: env.port,
  registryToken: env.registryToken,
});

await runSample(runtime, (ctx) => {
  const { words, characters } = countWords(textOf(ctx.input));
  return { words, characters, text: `${words} words, ${characters} characters` };
});
