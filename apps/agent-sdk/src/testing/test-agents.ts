import { createSocket, type Socket } from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import dnsPacket, { type Answer, type Packet } from 'dns-packet';
import { partsOf, TASK_STATE, valueOfParts } from '../protocol/a2a-wire.js';
import { REACH_CARD_EXTENSION } from '../protocol/card.js';
import type { InvokeRequest } from '../protocol/invoke.js';
import type { Outcome, RouteCandidate, RouteQuery } from '../protocol/route.js';

/** What a test agent's behaviour can do with one call. */
export interface InvokeExchange {
  request: InvokeRequest;
  /** Aborts when the caller goes away (or cancels the task) before the exchange finished. */
  signal: AbortSignal;
  /** Opens the SSE stream with the task in WORKING (the A2A ack). */
  ack(): void;
  progress(message: string): void;
  result(output: unknown): void;
  /** After the ack: a FAILED task carrying our code; before it: a JSON-RPC error (a refusal). */
  error(code: string, message: string, retryable: boolean): void;
  status(code: number, body: unknown): void;
  /** Kills the connection mid-stream, as a crashing process would. */
  crash(): void;
}

/** A small scripted A2A agent (JSON-RPC binding, raw SSE) for client tests, with a record of what it saw. */
export interface TestAgent {
  port: number;
  requests: InvokeRequest[];
  traceparents: Array<string | undefined>;
  /** request_ids whose caller went away before the answer. */
  aborted: string[];
  /** request_ids whose task got an A2A `CancelTask`. */
  cancelled: string[];
  close(): Promise<void>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

const EXT = REACH_CARD_EXTENSION;

/** The call a JSON-RPC `SendStreamingMessage` carries, in our terms. */
function callOf(params: {
  message: { messageId: string; parts: unknown[]; metadata?: Record<string, unknown> };
}) {
  const reach = (params.message.metadata?.[EXT] ?? {}) as Record<string, unknown>;
  return {
    request_id: params.message.messageId,
    input: valueOfParts(params.message.parts),
    ...reach,
  } as InvokeRequest;
}

/** Starts an agent on 127.0.0.1:0 whose A2A JSON-RPC binding (any path) runs `behaviour`. */
export async function startTestAgent(
  behaviour: (exchange: InvokeExchange) => void | Promise<void>,
): Promise<TestAgent> {
  const agent: Omit<TestAgent, 'port' | 'close'> = {
    requests: [],
    traceparents: [],
    aborted: [],
    cancelled: [],
  };
  const tasks = new Map<string, { requestId: string; cancel: () => void }>();
  let nextTask = 0;
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => {
      // biome-ignore lint/suspicious/noExplicitAny: the fixture reads A2A JSON as it comes off the wire
      const rpc = JSON.parse(text) as { id: unknown; method: string; params: any };
      if (rpc.method === 'CancelTask') {
        const task = tasks.get(rpc.params.id);
        if (task) {
          agent.cancelled.push(task.requestId);
          task.cancel();
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: rpc.id,
            result: { id: rpc.params.id, status: { state: TASK_STATE.canceled } },
          }),
        );
        return;
      }
      const request = callOf(rpc.params);
      agent.requests.push(request);
      agent.traceparents.push(req.headers.traceparent as string | undefined);
      const controller = new AbortController();
      const taskId = `task-${++nextTask}`;
      const contextId = `ctx-${nextTask}`;
      tasks.set(taskId, { requestId: request.request_id, cancel: () => controller.abort() });
      res.on('close', () => {
        if (!res.writableFinished) {
          agent.aborted.push(request.request_id);
          controller.abort();
        }
      });
      let acked = false;
      const event = (result: unknown) => {
        if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result })}\n\n`);
      };
      const status = (state: string, message?: { text: string; metadata?: unknown }) => ({
        statusUpdate: {
          taskId,
          contextId,
          status: {
            state,
            ...(message
              ? {
                  message: {
                    messageId: `m-${state}`,
                    role: 'ROLE_AGENT',
                    parts: [{ text: message.text }],
                    metadata: message.metadata,
                  },
                }
              : {}),
          },
        },
      });
      void behaviour({
        request,
        signal: controller.signal,
        ack: () => {
          acked = true;
          event({ task: { id: taskId, contextId, status: { state: TASK_STATE.working } } });
        },
        progress: (message) => event(status(TASK_STATE.working, { text: message })),
        result: (output) => {
          event({
            artifactUpdate: { taskId, contextId, artifact: { artifactId: 'output', parts: partsOf(output) } },
          });
          event(status(TASK_STATE.completed));
          res.end();
        },
        error: (code, message, retryable) => {
          if (acked) {
            event(status(TASK_STATE.failed, { text: message, metadata: { [EXT]: { code, retryable } } }));
            res.end();
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          const error = {
            code: -32603,
            message,
            data: [{ reason: code, domain: 'a2a-protocol.org', metadata: { code } }],
          };
          res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error }));
        },
        status: (code, body) => {
          res.writeHead(code, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        },
        crash: () => req.socket.destroy(),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...agent,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Behaviours used across the tests. */
export const behaviours = {
  answer:
    (output: unknown, delayMs = 0) =>
    async (x: InvokeExchange) => {
      x.ack();
      await sleep(delayMs, x.signal);
      if (!x.signal.aborted) x.result(output);
    },
  silent: () => () => {},
  ackThenSilent: () => (x: InvokeExchange) => x.ack(),
  status:
    (code: number, body: unknown = { code: 'UNAVAILABLE', message: `status ${code}` }) =>
    (x: InvokeExchange) =>
      x.status(code, body),
  crashAfterAck: () => async (x: InvokeExchange) => {
    x.ack();
    await sleep(30);
    x.crash();
  },
};

/** A port on which nothing listens (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A route candidate pointing at a local port. */
export function candidate(
  instanceId: string,
  port: number,
  options: { idempotent?: boolean; operation?: string } = {},
): RouteCandidate {
  return {
    instance_id: instanceId,
    agent_name: instanceId.replace(/-[^-]*$/, ''),
    operation: options.operation ?? 'summarize',
    endpoint: { host: '127.0.0.1', port, scheme: 'http', alpn: ['http/1.1'] },
    card_url: `http://127.0.0.1:${port}/.well-known/agent-card.json`,
    idempotent: options.idempotent ?? true,
    declaration_version: '1',
    state: 'healthy',
    score: 0.5,
    breakdown: { match: 1, health: 1, success_rate: 0.9, load: 1, warmup: 1, priority: 0.5 },
  };
}

/** A registry answering `POST /v1/route` from `answer` and recording outcomes, as an injected fetch. */
export function fakeRegistry(
  answer: (query: RouteQuery) => RouteCandidate[] | { status: number; body: unknown },
) {
  const queries: RouteQuery[] = [];
  const outcomeBatches: Outcome[][] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const body = JSON.parse(String(init?.body ?? 'null'));
    if (url.pathname === '/v1/outcomes') {
      outcomeBatches.push(body.outcomes);
      return Response.json({ accepted: body.outcomes.length, ignored: 0 }, { status: 202 });
    }
    queries.push(body);
    const result = answer(body);
    if (!Array.isArray(result)) return Response.json(result.body, { status: result.status });
    return Response.json({ candidates: result, conflict: null, cached: false });
  };
  return {
    fetch: fetchImpl as typeof fetch,
    queries,
    outcomeBatches,
    outcomes: () => outcomeBatches.flat(),
  };
}

/** A tiny UDP DNS server answering from a table keyed by `<TYPE> <name>` (dns-packet type names). */
export async function startFakeDns(table: Record<string, { answers: Answer[]; additionals?: Answer[] }>) {
  const socket: Socket = createSocket('udp4');
  const seen: string[] = [];
  socket.on('message', (message, remote) => {
    const query = dnsPacket.decode(message);
    const question = query.questions![0]!;
    const key = `${question.type} ${question.name.toLowerCase()}`;
    seen.push(key);
    const entry = table[key];
    const reply: Packet = {
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER,
      questions: query.questions,
      answers: entry?.answers ?? [],
      additionals: entry?.additionals ?? [],
    };
    socket.send(dnsPacket.encode(reply), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    seen,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
