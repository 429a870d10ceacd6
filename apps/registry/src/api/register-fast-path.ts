import type { IncomingMessage, ServerResponse } from 'node:http';
import { RegisterRequest } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistrationVerbs } from '../registration/index.js';
import { postJsonFastPath } from './fast-reply.js';

/**
 * `POST /v1/agents` straight on node:http: the same validation, verb and error bodies as the hono
 * route, without the per-request WHATWG objects (registration storms are the registry's second hot
 * path after heartbeats). Returns false when the request is not a registration.
 */
export function registerFastPath(deps: {
  verbs: Pick<RegistrationVerbs, 'register'>;
  metrics: RegistryMetrics;
  logger: Logger;
  maxBodyBytes: number;
}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { verbs, ...shared } = deps;
  return postJsonFastPath({
    ...shared,
    path: /^\/v1\/agents(?:\?.*)?$/,
    route: '/v1/agents',
    schema: RegisterRequest,
    what: 'registration',
    answer: async (body, req) => ({
      status: 201,
      text: JSON.stringify(await verbs.register(body, req.headers.authorization)),
    }),
  });
}
