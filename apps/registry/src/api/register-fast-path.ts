import type { IncomingMessage, ServerResponse } from 'node:http';
import { RegisterRequest } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { validationError } from '../errors/validation.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistrationVerbs } from '../registration/index.js';
import { readIncomingJson, sendFastError, sendJsonText } from './fast-reply.js';

const PATH = /^\/v1\/agents(?:\?.*)?$/;
const ROUTE = '/v1/agents';

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
  const { verbs, metrics, logger, maxBodyBytes } = deps;
  const failure = { logger, metrics, route: ROUTE };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const parsed = RegisterRequest.safeParse(await readIncomingJson(req, maxBodyBytes));
      if (!parsed.success) throw validationError(parsed.error, 'registration');
      const reply = await verbs.register(parsed.data, req.headers.authorization);
      sendJsonText(res, 201, JSON.stringify(reply));
      metrics.countRequest('POST', ROUTE, 201);
    } catch (error) {
      sendFastError(req, res, error, failure);
    }
  }

  return (req, res) => {
    if (req.method !== 'POST' || !PATH.test(req.url ?? '')) return false;
    void handle(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'registration response failed');
      res.destroy();
    });
    return true;
  };
}
