// An SDK agent (AgentRuntime) whose handler answers at once: the far end of the client-overhead bench.
// Env: REACH_CONTROL_PLANE_URL.
import { AgentRuntime } from '@agent-reach/sdk/runtime';

const runtime = new AgentRuntime({
  agentName: 'bench-echo',
  controlPlaneUrl: process.env.REACH_CONTROL_PLANE_URL ?? 'http://127.0.0.1:8701',
  capacity: 64,
  declaration: {
    agent_name: 'bench-echo',
    domain: 'bench',
    idempotent: true,
    capabilities: { bench_echo: { input: ['text'], output: ['text'] } },
  },
  handler: (ctx) => ({ text: (ctx.input as { text?: string }).text ?? '' }),
});

runtime.installSignalHandlers();
const registration = await runtime.start();
process.stdout.write(`${JSON.stringify({ ready: registration })}\n`);
