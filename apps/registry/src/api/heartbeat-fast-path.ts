import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeartbeatRequest } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { validationError } from '../http/validation.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistrationVerbs } from '../registration/index.js';
import { readIncomingJson, sendFastError, sendJsonText } from './fast-reply.js';
import { decodePathSegment, instanceIdParam } from './instance-id-param.js';

const PATH = /^\/v1\/agents\/([^/?#]+)\/heartbeat(?:\?.*)?$/;
const ROUTE = '/v1/agents/:id/heartbeat';

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

  const failure = { logger, metrics, route: ROUTE };
  // The verb answers with one shared object: serialise it once, not per heartbeat.
  let lastReply: unknown;
  let lastText = '';

  async function handle(req: IncomingMessage, res: ServerResponse, rawId: string): Promise<void> {
    try {
      const instanceId = instanceIdParam(decodePathSegment(rawId));
      const parsed = HeartbeatRequest.safeParse(await readIncomingJson(req, maxBodyBytes));
      if (!parsed.success) throw validationError(parsed.error, 'heartbeat');
      const reply = await verbs.heartbeat(instanceId, parsed.data, req.headers.authorization);
      if (reply !== lastReply) {
        lastReply = reply;
        lastText = JSON.stringify(reply);
      }
      sendJsonText(res, 200, lastText);
      metrics.countRequest('POST', ROUTE, 200);
    } catch (error) {
      sendFastError(req, res, error, failure);
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
