// Many instant agents in one process, each on its own port with its own SDK-built card, registered with
// the registry; the far end of the orchestrator bench. Env: FLEET_SPEC = JSON of FleetSpec.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2A_JSONRPC_PATH, CARD_PATH, Declaration, Endpoint } from '@agent-reach/sdk/protocol';
import { type CardDocument, cardDocument } from '@agent-reach/sdk/runtime';
import type { FleetReady, FleetSpec } from './agent-fleet.js';

const spec = JSON.parse(process.env.FLEET_SPEC ?? '{}') as FleetSpec;
/** Agent-side milliseconds per request_id, from request to the end of the answer; drained by GET /timings. */
const timings = new Map<string, number>();

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** One SSE event of an A2A JSON-RPC stream. */
const sse = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n\n`;

/** One instant agent: card, health, and an A2A JSON-RPC stream that acks (task) and completes at once. */
function agentServer(capability: string, cardText: () => string, id: () => string): Server {
  return createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    if (req.method === 'GET' && req.url === CARD_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(cardText());
    } else if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', in_flight: 0, capacity: 64, instance_id: id() }));
    } else if (req.method === 'POST' && req.url === A2A_JSONRPC_PATH) {
      const rpc = JSON.parse(await readBody(req)) as { params: { message: { messageId: string } } };
      const requestId = rpc.params.message.messageId;
      const taskId = `${id()}-${requestId}`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse({ task: { id: taskId, contextId: taskId, status: { state: 'TASK_STATE_WORKING' } } }));
      const parts = [{ data: { text: `${capability}: done` } }];
      res.write(
        sse({ artifactUpdate: { taskId, contextId: taskId, artifact: { artifactId: 'output', parts } } }),
      );
      res.end(
        sse({ statusUpdate: { taskId, contextId: taskId, status: { state: 'TASK_STATE_COMPLETED' } } }),
      );
      timings.set(requestId, performance.now() - started);
    } else {
      res.writeHead(404).end();
    }
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startAgent(group: FleetSpec['groups'][number]): Promise<Server> {
  const { capability, skill } = group;
  const declaration = Declaration.parse({
    agent_name: `bench-${capability.replaceAll('_', '-')}`,
    domain: 'bench',
    idempotent: true,
    substitutable: true,
    capabilities: { [capability]: { input: ['task'], output: ['text'], ...skill } },
  });
  let instanceId = '';
  let card: CardDocument | undefined;
  // The card names the port, so it is built once the server listens (nothing asks for it before).
  const server = agentServer(
    capability,
    () => card?.text ?? '',
    () => instanceId,
  );
  const port = await listen(server);
  const endpoint = Endpoint.parse({ host: '127.0.0.1', port });
  card = cardDocument(declaration, endpoint);
  const res = await fetch(`${spec.registryUrl}/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ declaration, endpoint, card_sha256: card.sha256 }),
  });
  if (res.status !== 201) throw new Error(`register ${capability}: ${res.status} ${await res.text()}`);
  instanceId = ((await res.json()) as { instance_id: string }).instance_id;
  return server;
}

const wanted = spec.groups.flatMap((g) => Array.from({ length: g.replicas }, () => g));
const servers: Server[] = [];
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < wanted.length) servers.push(await startAgent(wanted[next++]!));
  }),
);

const control = createServer((req, res) => {
  if (req.url === '/drop') {
    // Cuts every kept-alive connection, so the next discovery starts as cold as a fresh orchestrator.
    for (const s of servers) s.closeAllConnections();
    res.writeHead(204).end();
    return;
  }
  const prefix = new URL(req.url ?? '/', 'http://x').searchParams.get('prefix') ?? '';
  const out: Record<string, number> = {};
  for (const [id, ms] of timings) {
    if (id.startsWith(prefix)) {
      out[id] = ms;
      timings.delete(id);
    }
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
});
const controlPort = await listen(control);
process.once('SIGTERM', () => {
  for (const s of [...servers, control]) s.close();
  process.exit(0);
});
const ready: FleetReady = { agents: servers.length, controlUrl: `http://127.0.0.1:${controlPort}` };
process.stdout.write(`${JSON.stringify({ ready })}\n`);
