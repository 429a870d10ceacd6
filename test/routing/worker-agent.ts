// A real SDK agent process for the routing tests (AgentRuntime). It offers every operation the tests
// route to, prints `{"invoked": …}` per call and `{"aborted": …}` when its caller goes away.
// Env: REACH_CONTROL_PLANE_URL, AGENT_NAME (default worker), PRIORITY (50), EXTRA_DELAY_MS (0),
// OPERATIONS (comma list, default all), CRASH ('1': every call kills the process after its ack).
import { AgentRuntime, exitCannotStart, type InvokeContext } from '@agent-reach/sdk/runtime';

const ALL_OPERATIONS = [
  'summarize',
  'probe_connect',
  'probe_noack',
  'probe_silent',
  'probe_5xx',
  'probe_429',
  'probe_crash',
  'probe_rank',
  'probe_all',
  'longtask',
  'opinion',
  'synthesis',
];
const name = process.env.AGENT_NAME ?? 'worker';
const extraDelay = Number(process.env.EXTRA_DELAY_MS ?? 0);
const operations = (process.env.OPERATIONS ?? ALL_OPERATIONS.join(',')).split(',');
let instanceId = 'unregistered';

const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (ms <= 0) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });

async function handle(ctx: InvokeContext): Promise<unknown> {
  const input = (ctx.input ?? {}) as {
    delay_ms?: number;
    /** Per-instance delays, so racing instances of one agent finish at different times. */
    delays?: Record<string, number>;
    outputs?: Array<{ output: unknown }>;
  };
  print({ invoked: { request_id: ctx.requestId, capability: ctx.capability, instance_id: instanceId } });
  if (process.env.CRASH === '1') {
    ctx.progress('about to crash');
    setTimeout(() => process.kill(process.pid, 'SIGKILL'), 20);
    await new Promise(() => {});
  }
  try {
    await wait((input.delays?.[instanceId] ?? input.delay_ms ?? 0) + extraDelay, ctx.signal);
  } catch {
    print({ aborted: ctx.requestId });
    throw new Error('the caller went away');
  }
  if (ctx.capability === 'opinion') return `opinion of ${instanceId}`;
  if (ctx.capability === 'synthesis') {
    return `merged(${(input.outputs ?? [])
      .map((o) => String(o.output))
      .sort()
      .join(' | ')})`;
  }
  return { served_by: instanceId, capability: ctx.capability };
}

const runtime = new AgentRuntime({
  agentName: name,
  controlPlaneUrl: process.env.REACH_CONTROL_PLANE_URL ?? 'http://127.0.0.1:8701',
  port: 0,
  declaration: {
    agent_name: name,
    domain: 'text_processing',
    priority: Number(process.env.PRIORITY ?? 50),
    idempotent: true,
    capabilities: Object.fromEntries(
      operations.map((op) => [
        op,
        op === 'summarize'
          ? { constraints: { max_tokens: 5000, response_time_sec: 2, output_formats: ['text', 'json'] } }
          : {},
      ]),
    ),
  },
  handler: handle,
});

runtime.installSignalHandlers();
try {
  const registration = await runtime.start();
  instanceId = registration.instanceId;
  print({ ready: registration });
} catch (error) {
  exitCannotStart(error);
}
