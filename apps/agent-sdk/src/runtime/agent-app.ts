import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  CARD_PATH,
  ERROR_HTTP_STATUS,
  type ErrorCode,
  InvokeRequest,
  isReachError,
  quoteInput,
  TRACEPARENT_HEADER,
} from '../protocol/index.js';
import { type CardDocument, etagMatches } from './card-document.js';
import type { InvokeService } from './invoke-service.js';
import type { Logger } from './logger.js';
import { invokeStream, NDJSON_HEADERS } from './ndjson-stream.js';

/** The agent's state as `/health` reports it. */
export type HealthStatus = 'starting' | 'ok' | 'draining';

/** The body of `GET /health`. */
export interface HealthView {
  status: HealthStatus;
  in_flight: number;
  capacity: number;
  instance_id: string | null;
}

/** What the agent's HTTP app reads; all live views, so the app never holds stale state. */
export interface AgentAppDeps {
  service: InvokeService;
  health: () => HealthView;
  /** The card as served; null until the server knows its own port. */
  card: () => CardDocument | null;
  instanceId: () => string | undefined;
  maxBodyBytes: number;
  logger: Logger;
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

function errorBody(code: ErrorCode, message: string) {
  return { code, message };
}

/**
 * Builds the agent's HTTP API: `/health` (200 when ok, 503 while starting or draining), the agent card
 * (strong ETag, 304, `Cache-Control: public, max-age=60`) and `POST /v1/invoke` (NDJSON; 4xx JSON before any ack).
 */
export function createAgentApp(deps: AgentAppDeps): Hono {
  const app = new Hono();
  const status = (code: ErrorCode) => ERROR_HTTP_STATUS[code] as ContentfulStatusCode;

  app.get('/health', (c) => {
    const view = deps.health();
    return c.json(view, view.status === 'ok' ? 200 : 503);
  });

  app.get(CARD_PATH, (c) => {
    const card = deps.card();
    if (!card) return c.json(errorBody('UNAVAILABLE', 'the agent is starting'), 503);
    c.header('etag', card.etag);
    c.header('cache-control', 'public, max-age=60');
    if (etagMatches(c.req.header('if-none-match'), card.etag)) return c.body(null, 304);
    c.header('content-type', 'application/json');
    return c.body(card.text, 200);
  });

  app.post(
    '/v1/invoke',
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: (c) =>
        c.json(
          errorBody('PAYLOAD_TOO_LARGE', `the body exceeds ${deps.maxBodyBytes} bytes`),
          status('PAYLOAD_TOO_LARGE'),
        ),
    }),
    async (c) => {
      // Read the signal now: the node adapter only wires disconnects to signals that exist.
      const callerGone = c.req.raw.signal;
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return c.json(errorBody('INVALID_JSON', 'the body is not valid JSON'), status('INVALID_JSON'));
      }
      const parsed = InvokeRequest.safeParse(body);
      if (!parsed.success) {
        const detail = parsed.error.issues
          .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(body)'}: ${issue.message}`)
          .join('; ');
        return c.json(
          errorBody('VALIDATION_FAILED', `invalid invoke request: ${detail}`),
          status('VALIDATION_FAILED'),
        );
      }
      const header = c.req.header(TRACEPARENT_HEADER);
      const traceparent = header !== undefined && TRACEPARENT.test(header) ? header : undefined;
      const admitted = deps.service.admit(parsed.data, traceparent);
      if (!admitted.ok) {
        const { code, message } = admitted.error;
        return c.json(errorBody(code, message), status(code));
      }
      const { execution, replay } = admitted.value;
      const instanceId = deps.instanceId();
      const ack = {
        type: 'ack' as const,
        request_id: parsed.data.request_id,
        ...(instanceId === undefined ? {} : { instance_id: instanceId }),
        ...(replay ? { replay: true } : {}),
      };
      const stream = invokeStream(execution, ack, callerGone);
      // Start on the next macrotask so the ack is written before a CPU-bound handler takes the thread.
      if (!replay) setImmediate(() => execution.start());
      return new Response(stream, { status: 200, headers: NDJSON_HEADERS });
    },
  );

  app.notFound((c) =>
    c.json(errorBody('NOT_FOUND', `no route for ${c.req.method} ${quoteInput(c.req.path)}`), 404),
  );
  app.onError((error, c) => {
    if (isReachError(error)) return c.json(errorBody(error.code, error.message), status(error.code));
    deps.logger.error('unexpected error in the agent API', { error, path: c.req.path });
    return c.json(errorBody('INTERNAL', 'internal error'), 500);
  });
  return app;
}
