// A child-process agent for tests: its handler spins the main thread for `input.busy_ms`.
// Env: REACH_CONTROL_PLANE_URL, PORT (default 0), REACH_REGISTRY_TOKEN (optional), and DECLARATION
// (a file path) to override the built-in declaration. Also used by test/e2e-registry.
import { AgentRuntime } from '../runtime/agent-runtime.js';
import { exitCannotStart } from '../runtime/cannot-start.js';

const runtime = new AgentRuntime({
  agentName: 'busy-agent',
  controlPlaneUrl: process.env.REACH_CONTROL_PLANE_URL ?? 'http://127.0.0.1:8701',
  port: Number(process.env.PORT ?? 0),
  ...(process.env.REACH_REGISTRY_TOKEN ? { registryToken: process.env.REACH_REGISTRY_TOKEN } : {}),
  ...(process.env.DECLARATION
    ? { capabilityFile: process.env.DECLARATION }
    : {
        declaration: {
          agent_name: 'busy-agent',
          domain: 'testing',
          capabilities: { spin: { input: ['busy_ms'], output: ['spun_ms'] } },
        },
      }),
  handler: (ctx) => {
    const ms = Number((ctx.input as { busy_ms?: number }).busy_ms ?? 0);
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // Deliberately CPU-bound: nothing else runs on this thread meanwhile.
    }
    return { spun_ms: ms };
  },
});

runtime.installSignalHandlers();
try {
  const registration = await runtime.start();
  process.stdout.write(`${JSON.stringify({ ready: registration })}\n`);
} catch (error) {
  exitCannotStart(error);
}
