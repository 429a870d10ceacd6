// An SDK agent process for the durable-run tests: it serves the capabilities in CAPS (comma list) as
// AGENT_NAME, prints `{"invoked": {request_id, capability}}` each time its handler starts, so tests
// count the calls at the agent, and `{"answered": {request_id}}` when it finishes one (a call whose
// caller went away is cancelled and never answered), answering after DELAY_MS (or DELAYS, a JSON map capability → ms).
// IDEMPOTENT=0 declares its calls non-idempotent.
import { AgentRuntime, type InvokeContext } from '@agent-reach/sdk/runtime';

const name = process.env.AGENT_NAME ?? 'counting-agent';
const capabilities = (process.env.CAPS ?? 'research').split(',');
const delays = JSON.parse(process.env.DELAYS ?? '{}') as Record<string, number>;
const defaultDelay = Number(process.env.DELAY_MS ?? 0);
const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('the caller went away'));
    });
  });
}

async function handle(ctx: InvokeContext): Promise<unknown> {
  print({ invoked: { request_id: ctx.requestId, capability: ctx.capability } });
  await wait(delays[ctx.capability] ?? defaultDelay, ctx.signal);
  print({ answered: { request_id: ctx.requestId } });
  const input = ctx.input as { node_id?: string };
  return { text: `${ctx.capability} by ${name} for ${input.node_id ?? '?'}` };
}

const runtime = new AgentRuntime({
  agentName: name,
  controlPlaneUrl: process.env.REACH_CONTROL_PLANE_URL ?? 'http://127.0.0.1:8701',
  port: 0,
  capacity: 256,
  registryToken: process.env.REACH_REGISTRY_TOKEN,
  declaration: {
    agent_name: name,
    domain: 'catalog_demo',
    idempotent: process.env.IDEMPOTENT !== '0',
    substitutable: true,
    capabilities: Object.fromEntries(capabilities.map((c) => [c, { serves: [c] }])),
  },
  handler: handle,
});

runtime.installSignalHandlers();
const registration = await runtime.start();
print({ ready: registration });
