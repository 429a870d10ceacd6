import {
  AgentName,
  CapabilityId,
  HeartbeatRequest,
  InstanceState,
  RegisterRequest,
} from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { z } from 'zod';
import { requestHeader } from '../http/node-incoming.js';
import { readJson } from '../http/read-json.js';
import { parseOrThrow } from '../http/validation.js';
import type { RegistrationVerbs } from '../registration/index.js';
import { instanceIdParam } from './instance-id-param.js';

const ListQuery = z
  .object({
    capability: CapabilityId.optional(),
    state: InstanceState.optional(),
    agent_name: AgentName.optional(),
  })
  .strict();

/** The registration API (ARCHITECTURE section 11); routes only validate, call one verb and answer. */
export function agentRoutes(verbs: RegistrationVerbs): Hono {
  const app = new Hono();

  app.post('/v1/agents', async (c) => {
    const request = parseOrThrow(RegisterRequest, await readJson(c), 'registration');
    return c.json(await verbs.register(request, requestHeader(c, 'authorization')), 201);
  });

  app.post('/v1/agents/:id/heartbeat', async (c) => {
    const instanceId = instanceIdParam(c.req.param('id'));
    const request = parseOrThrow(HeartbeatRequest, await readJson(c), 'heartbeat');
    return c.json(await verbs.heartbeat(instanceId, request, requestHeader(c, 'authorization')));
  });

  app.delete('/v1/agents/:id', async (c) => {
    const instanceId = instanceIdParam(c.req.param('id'));
    return c.json(await verbs.deregister(instanceId, requestHeader(c, 'authorization')));
  });

  app.get('/v1/agents', (c) => {
    const filter = parseOrThrow(ListQuery, c.req.query(), 'query');
    return c.json({ instances: verbs.list(filter) });
  });

  app.get('/v1/agents/:id', (c) => c.json(verbs.get(instanceIdParam(c.req.param('id')))));

  app.get('/v1/declarations/:agent_name', async (c) => {
    const agentName = parseOrThrow(AgentName, c.req.param('agent_name'), 'agent name');
    return c.json({ agent_name: agentName, history: await verbs.declarationHistory(agentName) });
  });

  return app;
}
