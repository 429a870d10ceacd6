import { ExternalAgentRequest } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { DOCS } from '../api/route-docs.js';
import { requestHeader } from '../http/node-incoming.js';
import { readJson } from '../http/read-json.js';
import { parseOrThrow } from '../http/validation.js';
import type { ExternalAgents } from './external-agents.js';

/** `POST /v1/agents/external`: validate, register by card URL, answer 201. */
export function externalRoutes(external: ExternalAgents): Hono {
  const app = new Hono();
  app.post('/v1/agents/external', DOCS.registerExternal, async (c) => {
    const request = parseOrThrow(ExternalAgentRequest, await readJson(c), 'external agent');
    return c.json(await external.register(request, requestHeader(c, 'authorization')), 201);
  });
  return app;
}
