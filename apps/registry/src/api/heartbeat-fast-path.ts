import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeartbeatRequest } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { errorReply } from '../errors/error-handler.js';
import { parseJsonText, readIncoming, tooLarge } from '../errors/read-json.js';
import { validationError } from '../errors/validation.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistrationVerbs } from '../registration/index.js';
import { instanceIdParam } from './instance-id-param.js';

const PATH = /^\/v1\/agents\/([^/?#]+)\/heartbeat(?:\?.*)?$/;
const ROUTE = '/v1/agents/:id/heartbeat';

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * `POST /v1/agents/{id}/heartbeat` straight on node:http: the same validation, verb and error bodies
 * as the hono route, without the per-request WHATWG objects. Heartbeats are most of the registry's
 * traffic (thousands per second), so they skip the framework; every other request goes to hono.
 * Returns false when the request is not a heartbeat.
 */
export function heartbeatFastPath(deps: {
  verbs: RegistrationVerbs;
  metrics: RegistryMetrics;
  logger: Logger;
  maxBodyBytes: number;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { verbs, metrics, logger, maxBodyBytes } = deps;

  async function handle(req: IncomingMessage, res: ServerResponse, rawId: string): Promise<void> {
    try {
      const instanceId = instanceIdParam(rawId);
      const length = req.headers['content-length'];
      if (length !== undefined && Number(length) > maxBodyBytes) throw tooLarge(maxBodyBytes);
      const parsed = HeartbeatRequest.safeParse(
        parseJsonText((await readIncoming(req, maxBodyBytes)).toString('utf8')),
      );
      if (!parsed.success) throw validationError(parsed.error, 'heartbeat');
      send(res, 200, await verbs.heartbeat(instanceId, parsed.data, req.headers.authorization));
      metrics.countRequest('POST', ROUTE, 200);
    } catch (error) {
      const header = req.headers['x-request-id'];
      const requestId = typeof header === 'string' && header.length <= 128 ? header : randomUUID();
      const { status, body } = errorReply(
        error,
        { requestId, method: 'POST', path: req.url ?? ROUTE },
        logger,
      );
      if (!req.readableEnded) req.resume();
      send(res, status, body);
      metrics.countRequest('POST', ROUTE, status);
    }
  }

  return (req, res) => {
    if (req.method !== 'POST') return false;
    const match = PATH.exec(req.url ?? '');
    if (!match) return false;
    void handle(req, res, match[1]!).catch((error: unknown) => {
      logger.error({ err: error }, 'heartbeat response failed');
      res.destroy();
    });
    return true;
  };
}
