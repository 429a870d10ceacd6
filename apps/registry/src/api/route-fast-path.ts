import type { IncomingMessage, ServerResponse } from 'node:http';
import { RouteQuery } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { Router } from '../routing/index.js';
import { postJsonFastPath } from './fast-reply.js';

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
  const { router, ...shared } = deps;
  return postJsonFastPath({
    ...shared,
    path: /^\/v1\/route(?:\?.*)?$/,
    route: '/v1/route',
    schema: RouteQuery,
    what: 'route query',
    answer: (query) => ({ status: 200, text: router.routeJson(query) }),
  });
}
