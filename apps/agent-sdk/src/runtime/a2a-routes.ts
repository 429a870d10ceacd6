import {
  A2A_VERSION_HEADER,
  Extensions,
  HTTP_EXTENSION_HEADER,
  SendMessageRequest,
  SendMessageResponse,
  SSE_HEADERS,
  StreamResponse,
  Task,
} from '@a2a-js/sdk';
import { A2AError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from '@a2a-js/sdk/server';
import type { Context, Hono } from 'hono';
import { A2A_JSONRPC_PATH, A2A_REST_PATH, TRACEPARENT_HEADER } from '../protocol/index.js';
import { CALL_STATE, type ReachA2AHandler, ReachCallError } from './a2a-request-handler.js';

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const encoder = new TextEncoder();
const sse = (event: unknown) => encoder.encode(`data: ${JSON.stringify(event)}\n\n`);

/** HTTP statuses of the A2A errors for the HTTP+JSON binding (A2A v1.0 section 11), and their names. */
const REST_STATUS: Record<string, [number, string]> = {
  TaskNotFoundError: [404, 'NOT_FOUND'],
  TaskNotCancelableError: [409, 'FAILED_PRECONDITION'],
  PushNotificationNotSupportedError: [400, 'UNIMPLEMENTED'],
  UnsupportedOperationError: [400, 'UNIMPLEMENTED'],
  ContentTypeNotSupportedError: [415, 'INVALID_ARGUMENT'],
  ExtendedAgentCardNotConfiguredError: [400, 'FAILED_PRECONDITION'],
  VersionNotSupportedError: [400, 'INVALID_ARGUMENT'],
  RequestMalformedError: [400, 'INVALID_ARGUMENT'],
};

function restError(error: unknown): { status: number; body: unknown } {
  if (error instanceof ReachCallError) {
    const status = error.httpStatus;
    const body = { code: status, status: error.code, message: error.message, details: [error.toErrorInfo()] };
    return { status, body: { error: body } };
  }
  if (error instanceof A2AError) {
    const [status, name] = REST_STATUS[error.name] ?? [500, 'INTERNAL'];
    return {
      status,
      body: { error: { code: status, status: name, message: error.message, details: [error.toErrorInfo()] } },
    };
  }
  return {
    status: 500,
    body: { error: { code: 500, status: 'INTERNAL', message: 'internal error', details: [] } },
  };
}

/** The HTTP status a refusal before the stream gets on the JSON-RPC binding: overload and draining stay visible. */
function jsonRpcStatus(error: unknown): number {
  if (error instanceof ReachCallError && (error.code === 'OVERLOADED' || error.code === 'UNAVAILABLE'))
    return error.httpStatus;
  return 200;
}

/** The SSE body of one stream; the first item is already in hand (it is the ack). */
function sseStream<T>(
  first: T,
  rest: AsyncIterator<T>,
  gone: AbortController,
  encode: (item: T) => unknown,
  onError: (error: unknown) => unknown,
): Response {
  let sentFirst = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentFirst) {
        sentFirst = true;
        controller.enqueue(sse(encode(first)));
        return;
      }
      try {
        const next = await rest.next();
        if (next.done) controller.close();
        else controller.enqueue(sse(encode(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify(onError(error))}\n\n`));
        controller.close();
      }
    },
    cancel() {
      gone.abort();
      void rest.return?.(undefined);
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/** What both bindings need from a request: the A2A call context, with traceparent and the caller's signal. */
function callContext(c: Context, gone: AbortController): ServerCallContext {
  const header = c.req.header(TRACEPARENT_HEADER);
  const state = new Map<string, unknown>([
    [CALL_STATE.traceparent, header !== undefined && TRACEPARENT.test(header) ? header : undefined],
    // Read the signal now: the node adapter only wires disconnects to signals that exist.
    [CALL_STATE.callerGone, AbortSignal.any([c.req.raw.signal, gone.signal])],
  ]);
  return new ServerCallContext({
    requestedExtensions: Extensions.parseServiceParameter(c.req.header(HTTP_EXTENSION_HEADER)),
    state,
    requestedVersion: c.req.header(A2A_VERSION_HEADER),
  });
}

/**
 * Mounts the A2A bindings the card lists: JSON-RPC at `/a2a/jsonrpc` (the SDK's transport handler) and
 * HTTP+JSON under `/a2a/rest` (ours: the SDK ships that binding for express only).
 */
export function mountA2ABindings(app: Hono, handler: ReachA2AHandler): void {
  const jsonRpc = new JsonRpcTransportHandler(handler);

  app.post(A2A_JSONRPC_PATH, async (c) => {
    const gone = new AbortController();
    const context = callContext(c, gone);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'the body is not valid JSON' },
      });
    }
    const id = (body as { id?: unknown } | null)?.id ?? null;
    try {
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
    } catch (error) {
      return c.json(
        { jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) },
        jsonRpcStatus(error) as 200,
      );
    }
    const answer = await jsonRpc.handle(body as Record<string, unknown>, context);
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    const iterator = answer[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await iterator.next();
    } catch (error) {
      const rpcError = JsonRpcTransportHandler.mapToJSONRPCError(error);
      return c.json({ jsonrpc: '2.0', id, error: rpcError }, jsonRpcStatus(error) as 200);
    }
    if (first.done) return c.json({ jsonrpc: '2.0', id, error: { code: -32603, message: 'empty stream' } });
    return sseStream(
      first.value,
      iterator,
      gone,
      (item) => item,
      (error) => ({
        jsonrpc: '2.0',
        id,
        error: JsonRpcTransportHandler.mapToJSONRPCError(error),
      }),
    );
  });

  const rest = async (c: Context) => {
    const path = c.req.path.slice(A2A_REST_PATH.length);
    const gone = new AbortController();
    const context = callContext(c, gone);
    try {
      validateVersion(context.requestedVersion, await handler.getAgentCard(), 'HTTP+JSON');
      const method = c.req.method;
      if (method === 'POST' && (path === '/message:send' || path === '/message:stream')) {
        let json: unknown;
        try {
          json = await c.req.json();
        } catch {
          throw new RequestMalformedError('the body is not valid JSON');
        }
        const params = SendMessageRequest.fromJSON(json ?? {});
        if (path === '/message:send') {
          const result = await handler.sendMessage(params, context);
          const payload =
            'messageId' in result
              ? ({ $case: 'message', value: result } as const)
              : ({ $case: 'task', value: result } as const);
          return c.json(SendMessageResponse.toJSON({ payload }));
        }
        return await streamRest(handler.sendMessageStream(params, context), gone);
      }
      const task = /^\/tasks\/([^/:]+)(:cancel|:subscribe)?$/.exec(path);
      if (task) {
        const id = decodeURIComponent(task[1] as string);
        if (method === 'GET' && task[2] === undefined)
          return c.json(Task.toJSON(await handler.getTask({ id, tenant: '' })));
        if (method === 'POST' && task[2] === ':cancel')
          return c.json(Task.toJSON(await handler.cancelTask({ id, tenant: '', metadata: undefined })));
        if (task[2] === ':subscribe')
          return await streamRest(handler.resubscribe({ id, tenant: '' }, context), gone);
      }
      return c.json(
        { error: { code: 404, status: 'NOT_FOUND', message: `no A2A route ${method} ${path}`, details: [] } },
        404,
      );
    } catch (error) {
      const { status, body } = restError(error);
      return c.json(body, status as 200);
    }
  };
  app.all(`${A2A_REST_PATH}/*`, rest);
}

async function streamRest(
  stream: AsyncGenerator<StreamResponse, void, undefined>,
  gone: AbortController,
): Promise<Response> {
  const first = await stream.next();
  if (first.done) throw new RequestMalformedError('the task produced no event');
  return sseStream(
    first.value,
    stream,
    gone,
    (event) => StreamResponse.toJSON(event),
    (error) => restError(error).body,
  );
}
