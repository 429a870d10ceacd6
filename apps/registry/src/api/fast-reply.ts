import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { errorReply } from '../errors/error-handler.js';
import { parseJsonText, readIncoming, tooLarge } from '../errors/read-json.js';
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
