// An A2A agent built only with @a2a-js/sdk's server and express — no code of ours — for the tests that
// register anyone's agent by card URL. Prints `{"ready": {"url", "card_url"}}` once listening.
// Env: PORT (default 0). `POST /test/lie` changes the card's description (so its bytes and digest change).
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type AgentCard, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

const app = express();
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const { port } = server.address() as AddressInfo;
const base = `http://127.0.0.1:${port}`;

let description = 'Echoes text back in upper case (an outside A2A agent).';
const card = (): AgentCard =>
  ({
    name: 'Upper Echo',
    description,
    supportedInterfaces: [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
    ],
    provider: undefined,
    version: '2.1.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'upper-echo',
        name: 'Upper echo',
        description: 'Repeats the text it is sent, in upper case.',
        tags: ['text', 'echo'],
        examples: ['hello'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  }) as unknown as AgentCard;

const textOf = (context: RequestContext) =>
  context.userMessage.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : JSON.stringify(p.content?.value ?? '')))
    .join(' ');

const executor: AgentExecutor = {
  async execute(context: RequestContext, bus: ExecutionEventBus) {
    const { taskId, contextId } = context;
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_WORKING,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [context.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'echo',
          description: '',
          parts: [
            {
              content: { $case: 'text', value: textOf(context).toUpperCase() },
              metadata: undefined,
              filename: '',
              mediaType: 'text/plain',
            },
          ],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  },
  async cancelTask(taskId: string, bus: ExecutionEventBus) {
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: {
            messageId: randomUUID(),
            contextId: '',
            taskId,
            role: Role.ROLE_AGENT,
            parts: [],
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          },
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  },
};

const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
const provider = { getAgentCard: async () => card() };
app.post('/test/lie', (_req, res) => {
  description = `${description} (changed)`;
  res.json({ description });
});
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: provider }));
app.use(
  '/a2a/jsonrpc',
  jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
);
app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));

process.stdout.write(
  `${JSON.stringify({ ready: { url: base, card_url: `${base}/.well-known/agent-card.json` } })}\n`,
);
process.on('SIGTERM', () => process.exit(0));
