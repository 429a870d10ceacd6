import type { IncomingMessage, ServerResponse } from 'node:http';
import { RouteQuery } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { validationError } from '../errors/validation.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { Router } from '../routing/index.js';
import { readIncomingJson, sendFastError, sendJsonText } from './fast-reply.js';

const PATH = /^\/v1\/route(?:\?.*)?$/;
const ROUTE = '/v1/route';

/**
 * `POST /v1/route` straight on node:http: the same validation, verb (`routeJson`, i.e. `route`
 * serialised) and error bodies as the hono route, without the per-request WHATWG objects; a cached
 * answer's candidates are written from their cached JSON. Returns false when the request is not a route query.
 */
export function routeFastPath(deps: {
  router: Pick<Router, 'routeJson'>;
  metrics: RegistryMetrics;
  logger: Logger;
  maxBodyBytes: number;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { router, metrics, logger, maxBodyBytes } = deps;
  const failure = { logger, metrics, route: ROUTE };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const parsed = RouteQuery.safeParse(await readIncomingJson(req, maxBodyBytes));
      if (!parsed.success) throw validationError(parsed.error, 'route query');
      sendJsonText(res, 200, router.routeJson(parsed.data));
      metrics.countRequest('POST', ROUTE, 200);
    } catch (error) {
      sendFastError(req, res, error, failure);
    }
  }

  return (req, res) => {
    if (req.method !== 'POST' || !PATH.test(req.url ?? '')) return false;
    void handle(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'route response failed');
      res.destroy();
    });
    return true;
  };
}
