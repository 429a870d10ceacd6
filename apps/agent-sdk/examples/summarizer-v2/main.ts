// summarizer-v2 (seed article 3.2): an extractive demo summarizer. Run:
//   pnpm --filter @agent-reach/sdk exec tsx examples/summarizer-v2/main.ts
import { fileURLToPath } from 'node:url';
import { AgentRuntime, type InvokeContext } from '@agent-reach/sdk/runtime';
import { runSample, sampleEnv } from '../sample-env.js';
import { leadSentences, parseSummarizeInput } from './summarize.js';

const env = sampleEnv();
const runtime = new AgentRuntime({
  agentName: 'summarizer-v2',
  controlPlaneUrl: env.controlPlaneUrl,
  capabilityFile: fileURLToPath(new URL('./declaration.json', import.meta.url)),
  host: env.host,
  port: env.port,
  registryToken: env.registryToken,
});

class Summarizer {
  @runtime.entrypoint
  handle(ctx: InvokeContext) {
    const { text, max_length } = parseSummarizeInput(ctx.input);
    const summary = leadSentences(text, max_length);
    return { summary, method: 'demo: extractive, the leading sentences that fit max_length' };
  }
}

await runSample(runtime, new Summarizer());
