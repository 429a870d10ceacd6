// The catalog demo agents (seed 2.2): one process per agent, chosen by capability or name. Run:
//   pnpm --filter @agent-reach/sdk exec tsx examples/catalog-agents/main.ts writing
// Env: REACH_CONTROL_PLANE_URL, HOST, PORT, REACH_REGISTRY_TOKEN (see ../sample-env.ts);
// CATALOG_AGENT instead of the argument; DEMO_AGENT_DELAY_MS to simulate work time;
// AGENT_LLM_BASE_URL + AGENT_LLM_MODEL (+ AGENT_LLM_API_KEY) to answer through a model; OTEL_* to export spans.
import { ReachError } from '@agent-reach/sdk/protocol';
import { AgentRuntime, exitCannotStart, type InvokeContext } from '@agent-reach/sdk/runtime';
import { sampleEnv } from '../sample-env.js';
import { startAgentTelemetry } from './agent-telemetry.js';
import { resolveCatalogAgent } from './agents.js';
import { modelFromEnv } from './model.js';
import { readTaskInput } from './task-input.js';

const spec = resolveCatalogAgent(process.argv[2] ?? process.env.CATALOG_AGENT);
const env = sampleEnv();
const delayMs = Number(process.env.DEMO_AGENT_DELAY_MS ?? 0);
const model = modelFromEnv(process.env);
const stopTelemetry = startAgentTelemetry(process.env, spec.agentName);

const runtime = new AgentRuntime({
  agentName: spec.agentName,
  controlPlaneUrl: env.controlPlaneUrl,
  capabilityFile: spec.declarationFile,
  host: env.host,
  port: env.port,
  registryToken: env.registryToken,
});

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

async function answer(ctx: InvokeContext) {
  let input: ReturnType<typeof readTaskInput>;
  try {
    input = readTaskInput(ctx.input, ctx.context);
  } catch (error) {
    throw new ReachError('VALIDATION_FAILED', (error as Error).message);
  }
  // Simulated work time, so demos and tests can watch layers run in parallel.
  if (delayMs > 0) await delay(delayMs, ctx.signal);
  const text = await model.answer(ctx.capability, input, ctx.signal);
  return { text, model: model.name, capability: ctx.capability };
}

runtime.installSignalHandlers((code) => {
  void stopTelemetry().finally(() => process.exit(code));
});
try {
  const registration = await runtime.start(answer);
  process.stdout.write(`${JSON.stringify({ ready: registration, serves: spec.serves })}\n`);
} catch (error) {
  if (runtime.status !== 'draining') {
    exitCannotStart(error);
  }
}
