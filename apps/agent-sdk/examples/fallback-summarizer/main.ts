// fallback-summarizer (seed article 3.2): the fallback chain's cruder backup. Run:
//   pnpm --filter @agent-reach/sdk exec tsx examples/fallback-summarizer/main.ts
import { fileURLToPath } from 'node:url';
import { AgentRuntime, type InvokeContext } from '@agent-reach/sdk/runtime';
import { runSample, sampleEnv } from '../sample-env.js';
import { cutAtWord, parseSummarizeInput } from '../summarizer-v2/summarize.js';

const env = sampleEnv();
const runtime = new AgentRuntime({
  agentName: 'fallback-summarizer',
  controlPlaneUrl: env.controlPlaneUrl,
  capabilityFile: fileURLToPath(new URL('./declaration.json', import.meta.url)),
  host: env.host,
  port: env.port,
  registryToken: env.registryToken,
});

/** Truncates the whitespace-normalised text at a word boundary: crude, but it never fails. */
function summarize(ctx: InvokeContext) {
  const { text, max_length } = parseSummarizeInput(ctx.input);
  const summary = cutAtWord(text.replace(/\s+/g, ' ').trim(), max_length);
  return { summary, method: 'demo: truncation at a word boundary (fallback quality)' };
}

await runSample(runtime, summarize);
