// A bench agent that takes SLOW_AGENT_MS to answer any catalog capability (runs stay in flight long
// enough to kill their orchestrator mid-layer). Env: REACH_CONTROL_PLANE_URL, SLOW_AGENT_MS.
import { DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';
import { AgentRuntime } from '@agent-reach/sdk/runtime';

const delayMs = Number(process.env.SLOW_AGENT_MS ?? 1000);
const runtime = new AgentRuntime({
  agentName: 'bench-slow-agent',
  controlPlaneUrl: process.env.REACH_CONTROL_PLANE_URL ?? 'http://127.0.0.1:8701',
  host: '127.0.0.1',
  port: 0,
  capacity: 1024,
  logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  declaration: {
    agent_name: 'bench-slow-agent',
    domain: 'catalog_demo',
    idempotent: true,
    substitutable: true,
    capabilities: Object.fromEntries(DEFAULT_CATALOG.map((c) => [c, { serves: [c] }])),
  },
  handler: async (ctx) => {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, delayMs);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('the caller went away'));
      });
    });
    return { text: `${ctx.capability} done` };
  },
});
runtime.installSignalHandlers();
const registration = await runtime.start();
process.stdout.write(`${JSON.stringify({ ready: registration })}\n`);
