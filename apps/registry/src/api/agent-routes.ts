import {
  AgentName,
  DeclarationVersion,
  HeartbeatRequest,
  VerifyVersionRequest,
} from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { requestHeader } from '../http/node-incoming.js';
import { readJson } from '../http/read-json.js';
import { parseOrThrow } from '../http/validation.js';
import type { RegistrationVerbs } from '../registration/index.js';
import { instanceIdParam } from './instance-id-param.js';
import { RegisterRequestParser } from './register-request.js';
import { DOCS, ListQuery } from './route-docs.js';

/** The registration API (ARCHITECTURE section 11); routes only validate, call one verb and answer. */
export function agentRoutes(verbs: RegistrationVerbs): Hono {
  const app = new Hono();
  const registrations = new RegisterRequestParser();

  app.post('/v1/agents', DOCS.register, async (c) => {
    const request = registrations.parse(await readJson(c));
    return c.json(await verbs.register(request, requestHeader(c, 'authorization')), 201);
  });

  app.post('/v1/agents/:id/heartbeat', DOCS.heartbeat, async (c) => {
    const instanceId = instanceIdParam(c.req.param('id'));
    const request = parseOrThrow(HeartbeatRequest, await readJson(c), 'heartbeat');
    return c.json(await verbs.heartbeat(instanceId, request, requestHeader(c, 'authorization')));
  });

  app.delete('/v1/agents/:id', DOCS.deregister, async (c) => {
    const instanceId = instanceIdParam(c.req.param('id'));
    return c.json(await verbs.deregister(instanceId, requestHeader(c, 'authorization')));
  });

  app.get('/v1/agents', DOCS.list, (c) => {
    const filter = parseOrThrow(ListQuery, c.req.query(), 'query');
    return c.json({ instances: verbs.list(filter) });
  });

  app.get('/v1/agents/:id', DOCS.get, (c) => c.json(verbs.get(instanceIdParam(c.req.param('id')))));

  app.get('/v1/declarations/:agent_name', DOCS.declarations, async (c) => {
    const agentName = parseOrThrow(AgentName, c.req.param('agent_name'), 'agent name');
    return c.json({ agent_name: agentName, history: await verbs.declarationHistory(agentName) });
  });

  app.post('/v1/declarations/:agent_name/versions/:version/verify', DOCS.verifyVersion, async (c) => {
    const agentName = parseOrThrow(AgentName, c.req.param('agent_name'), 'agent name');
    const version = parseOrThrow(DeclarationVersion, c.req.param('version'), 'version');
    const request = parseOrThrow(VerifyVersionRequest, await readJson(c), 'verification');
    return c.json(await verbs.verifyVersion(agentName, version, request, requestHeader(c, 'authorization')));
  });

  return app;
}
