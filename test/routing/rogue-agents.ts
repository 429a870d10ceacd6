// One process hosting misbehaving agents for the routing tests, each registered with the real registry
// over its HTTP API and heartbeating, each failing in one way (the seed article's failure classes) on the
// A2A JSON-RPC wire our callers use (any path answers).
// Prints `{"ready": {"<mode>": "<instance id>", …}}` once all are registered. Env: REACH_CONTROL_PLANE_URL.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Mode = 'connect' | 'noack' | 'silent' | '5xx' | '429' | 'classifier-a' | 'classifier-b';

interface Rogue {
  agent: string;
  operations: string[];
  priority: number;
  idempotent: boolean;
  serve?: (req: http.IncomingMessage, res: http.ServerResponse, requestId: string) => void;
}

/** One A2A JSON-RPC stream event (SSE). */
const event = (res: http.ServerResponse, result: unknown) =>
  res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n\n`);

/** The A2A ack: the stream opens with the task in WORKING. */
const ack = (res: http.ServerResponse, requestId: string) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  event(res, {
    task: { id: `task-${requestId}`, contextId: 'rogue', status: { state: 'TASK_STATE_WORKING' } },
  });
};

const ROGUES: Record<Mode, Rogue> = {
  // Registered at a port where nothing listens.
  connect: { agent: 'rogue-connect', operations: ['probe_connect'], priority: 100, idempotent: true },
  // Accepts the connection and never answers.
  noack: {
    agent: 'rogue-noack',
    operations: ['probe_noack'],
    priority: 100,
    idempotent: true,
    serve: () => {},
  },
  // Acks, then never finishes; not idempotent, so the caller must not send it elsewhere.
  silent: {
    agent: 'rogue-silent',
    operations: ['probe_silent'],
    priority: 100,
    idempotent: false,
    serve: (_req, res, id) => ack(res, id),
  },
  '5xx': {
    agent: 'rogue-5xx',
    operations: ['probe_5xx', 'probe_rank', 'probe_all'],
    priority: 100,
    idempotent: false,
    serve: (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'UNAVAILABLE', message: 'rogue: internal failure' }));
    },
  },
  '429': {
    agent: 'rogue-429',
    operations: ['probe_429', 'probe_all'],
    // Not 100: rogue-5xx also offers probe_all, and equal priorities would make them a conflict.
    priority: 90,
    idempotent: true,
    serve: (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'OVERLOADED', message: 'rogue: at capacity' }));
    },
  },
  // Two different agents declaring the same operation at the same priority, neither substitutable.
  'classifier-a': {
    agent: 'classifier-a',
    operations: ['classify'],
    priority: 50,
    idempotent: true,
    serve: answer('a'),
  },
  'classifier-b': {
    agent: 'classifier-b',
    operations: ['classify'],
    priority: 50,
    idempotent: true,
    serve: answer('b'),
  },
};

function answer(label: string): NonNullable<Rogue['serve']> {
  return (_req, res, id) => {
    ack(res, id);
    const taskId = `task-${id}`;
    event(res, {
      artifactUpdate: {
        taskId,
        contextId: 'rogue',
        artifact: { artifactId: 'output', parts: [{ text: `classified by ${label}` }] },
      },
    });
    event(res, { statusUpdate: { taskId, contextId: 'rogue', status: { state: 'TASK_STATE_COMPLETED' } } });
    res.end();
  };
}

const registry = process.env.REACH_CONTROL_PLANE_URL ?? 'http://127.0.0.1:8701';
const cardSha = createHash('sha256').update('rogue card').digest('base64url');

async function listen(rogue: Rogue): Promise<number> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      const rpc = JSON.parse(body || '{}') as { params?: { message?: { messageId?: string } } };
      const requestId = rpc.params?.message?.messageId ?? 'unknown';
      rogue.serve!(req, res, requestId);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function register(rogue: Rogue): Promise<string> {
  const port = rogue.serve ? await listen(rogue) : await closedPort();
  const res = await fetch(`${registry}/v1/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      declaration: {
        agent_name: rogue.agent,
        domain: 'text_processing',
        priority: rogue.priority,
        idempotent: rogue.idempotent,
        capabilities: Object.fromEntries(rogue.operations.map((op) => [op, {}])),
      },
      endpoint: { host: '127.0.0.1', port },
      card_sha256: cardSha,
    }),
  });
  if (res.status !== 201) throw new Error(`register ${rogue.agent}: ${res.status} ${await res.text()}`);
  const { instance_id, lease_token, heartbeat_interval_ms } = (await res.json()) as {
    instance_id: string;
    lease_token: string;
    heartbeat_interval_ms: number;
  };
  let seq = 0;
  setInterval(() => {
    seq += 1;
    void fetch(`${registry}/v1/agents/${instance_id}/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${lease_token}` },
      body: JSON.stringify({ seq, load: { in_flight: 0, capacity: 16, queue: 0 } }),
    }).catch(() => {});
  }, heartbeat_interval_ms);
  return instance_id;
}

const ready: Record<string, string> = {};
for (const [mode, rogue] of Object.entries(ROGUES)) ready[mode] = await register(rogue);
process.stdout.write(`${JSON.stringify({ ready })}\n`);
process.on('SIGTERM', () => process.exit(0));
