import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ZodError } from 'zod';
import { errorReply } from '../http/error-handler.js';
import { parseJsonText, readIncoming, tooLarge } from '../http/read-json.js';
import { validationError } from '../http/validation.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';

/** Writes a JSON text with the headers hono's `c.json` sends. */
export function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Reads a node:http body as JSON within `maxBodyBytes`, with the hono routes' errors. */
export async function readIncomingJson(req: IncomingMessage, maxBodyBytes: number): Promise<unknown> {
  const length = req.headers['content-length'];
  if (length !== undefined && Number(length) > maxBodyBytes) throw tooLarge(maxBodyBytes);
  return parseJsonText((await readIncoming(req, maxBodyBytes)).toString('utf8'));
}

/** Answers a fast-path failure with the body and status hono's `onError` would give, and counts it. */
export function sendFastError(
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  deps: { logger: Logger; metrics: RegistryMetrics; route: string },
): void {
  const header = req.headers['x-request-id'];
  const requestId = typeof header === 'string' && header.length <= 128 ? header : randomUUID();
  const { status, body } = errorReply(
    error,
    { requestId, method: 'POST', path: req.url ?? deps.route },
    deps.logger,
  );
  if (!req.readableEnded) req.resume();
  sendJsonText(res, status, JSON.stringify(body));
  deps.metrics.countRequest('POST', deps.route, status);
}

/** A JSON POST endpoint served on node:http: which requests it takes and how it answers a valid body. */
export interface PostJsonFastPath<Body> {
  /** Matches the request URL (path and optional query). */
  path: RegExp;
  /** The route label in metrics and error logs, e.g. `/v1/route`. */
  route: string;
  /** Validates the body; a failure is answered as the hono route would (`VALIDATION_FAILED`). */
  schema: { safeParse(value: unknown): { success: true; data: Body } | { success: false; error: ZodError } };
  /** Names the body in validation messages, e.g. `route query`. */
  what: string;
  /** The answer to a valid body; a thrown error is answered with its code, as the hono route would. */
  answer(
    body: Body,
    req: IncomingMessage,
  ): Promise<{ status: number; text: string }> | { status: number; text: string };
  metrics: RegistryMetrics;
  logger: Logger;
  maxBodyBytes: number;
}

/**
 * Serves one JSON POST endpoint straight on node:http — the same validation and error bodies as its
 * hono route, without the per-request WHATWG objects. The returned handler returns false for any other
 * request, so the caller hands it to hono.
 */
export function postJsonFastPath<Body>(
  spec: PostJsonFastPath<Body>,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { path, route, schema, what, metrics, logger, maxBodyBytes } = spec;
  const failure = { logger, metrics, route };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const parsed = schema.safeParse(await readIncomingJson(req, maxBodyBytes));
      if (!parsed.success) throw validationError(parsed.error, what);
      const { status, text } = await spec.answer(parsed.data, req);
      sendJsonText(res, status, text);
      metrics.countRequest('POST', route, status);
    } catch (error) {
      sendFastError(req, res, error, failure);
    }
  }

  return (req, res) => {
    if (req.method !== 'POST' || !path.test(req.url ?? '')) return false;
    void handle(req, res).catch((error: unknown) => {
      logger.error({ err: error, route }, 'fast path response failed');
      res.destroy();
    });
    return true;
  };
}
