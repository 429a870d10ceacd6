import { type AgentRuntime, exitCannotStart, type InvokeHandler } from '@agent-reach/sdk/runtime';

/** The sample agents' settings, from the environment (the only place the samples read it). */
export function sampleEnv(env: Record<string, string | undefined> = process.env) {
  return {
    controlPlaneUrl: env.REACH_CONTROL_PLANE_URL || 'http://127.0.0.1:8701',
    host: env.HOST || '127.0.0.1',
    port: env.PORT ? Number(env.PORT) : 0,
    registryToken: env.REACH_REGISTRY_TOKEN || undefined,
  };
}

/** Starts a sample: SIGTERM/SIGINT deregister and exit 0; a bad declaration or config prints the error and exits 1. */
export async function runSample(runtime: AgentRuntime, target?: InvokeHandler | object): Promise<void> {
  runtime.installSignalHandlers();
  try {
    const registration = await runtime.start(target);
    process.stdout.write(`${JSON.stringify({ ready: registration })}\n`);
  } catch (error) {
    // A signal during start stops the runtime; the signal handler exits, not us.
    if (runtime.status === 'draining') return;
    exitCannotStart(error);
  }
}
