import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Clock } from '../clock/index.js';
import {
  A2A_JSONRPC_PATH,
  A2A_REST_PATH,
  CARD_PATH,
  ERROR_HTTP_STATUS,
  type ErrorCode,
  isReachError,
  quoteInput,
} from '../protocol/index.js';
import { ReachA2AHandler } from './a2a-request-handler.js';
import { mountA2ABindings } from './a2a-routes.js';
import { type CardDocument, etagMatches } from './card-document.js';
import type { InvokeService } from './invoke-service.js';
import type { Logger } from './logger.js';
import type { LedgerLimits } from './request-ledger.js';

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
  clock: Clock;
  /** Bounds of the task index (the same as the request_id ledger's). */
  ledger: LedgerLimits;
}

function errorBody(code: ErrorCode, message: string) {
  return { code, message };
}

/**
 * Builds the agent's HTTP API: `/health` (200 when ok, 503 while starting or draining), the agent card
 * (strong ETag, 304, `Cache-Control: public, max-age=60`) and the A2A bindings the card lists (JSON-RPC at
 * `/a2a/jsonrpc`, HTTP+JSON under `/a2a/rest`).
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

  const limit = bodyLimit({
    maxSize: deps.maxBodyBytes,
    onError: (c) =>
      c.json(
        errorBody('PAYLOAD_TOO_LARGE', `the body exceeds ${deps.maxBodyBytes} bytes`),
        status('PAYLOAD_TOO_LARGE'),
      ),
  });
  app.use(`${A2A_JSONRPC_PATH}`, limit);
  app.use(`${A2A_REST_PATH}/*`, limit);
  mountA2ABindings(
    app,
    new ReachA2AHandler({
      service: deps.service,
      card: () => deps.card()?.a2a ?? null,
      clock: deps.clock,
      ledger: deps.ledger,
    }),
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
