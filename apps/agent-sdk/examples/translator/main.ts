// translator (seed article 3.2): a word-table demo translator. Run:
//   pnpm --filter @agent-reach/sdk exec tsx examples/translator/main.ts
import { fileURLToPath } from 'node:url';
import { AgentRuntime } from '@agent-reach/sdk/runtime';
import { runSample, sampleEnv } from '../sample-env.js';
import { parseTranslateInput, translateWords } from './word-table.js';

const env = sampleEnv();
const runtime = new AgentRuntime({
  agentName: 'translator',
  controlPlaneUrl: env.controlPlaneUrl,
  capabilityFile: fileURLToPath(new URL('./declaration.json', import.meta.url)),
  host: env.host,
  port: env.port,
  registryToken: env.registryToken,
  handler: (ctx) => {
    const { text, target_lang } = parseTranslateInput(ctx.input);
    const { translation, untranslated } = translateWords(text, target_lang);
    return {
      translation,
      target_lang,
      untranslated,
      method: 'demo: word-by-word table lookup, not a real translation',
    };
  },
});

await runSample(runtime);
