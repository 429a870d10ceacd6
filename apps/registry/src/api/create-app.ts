import { mountApiDocs } from '@agent-reach/sdk/http';
import { quoteInput, ReachError } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { createErrorHandler } from '../http/error-handler.js';
import { policyMiddleware, type RequestPolicy } from '../http/request-policy.js';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import type { RegistrationVerbs } from '../registration/index.js';
import { agentRoutes } from './agent-routes.js';
import { probeRoutes, type ReadinessCheck } from './probe-routes.js';

/** What the registry's HTTP app is built from. */
export interface AppDeps {
  verbs: RegistrationVerbs;
  metrics: RegistryMetrics;
  logger: Logger;
  /** The body limit and request metrics, shared with the node:http fast paths (`api/fast-paths.ts`). */
  policy: RequestPolicy;
  readiness: ReadinessCheck;
  /** More routers (routing, `GET /v1/zone`, …) mounted at `/`; they share the error handler and limits. */
  routes?: Hono[];
}

/** Builds the registry's hono app. Nothing listens: call `app.request()` in tests or serve it. */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.use(...policyMiddleware(deps.policy));
  app.route('/', agentRoutes(deps.verbs));
  app.route('/', probeRoutes(deps.metrics, deps.readiness));
  for (const routes of deps.routes ?? []) app.route('/', routes);
  mountApiDocs(app, {
    title: 'Agent Reach registry API',
    version: '1',
    description:
      'Registration, heartbeats, routing and the DNS zone (ARCHITECTURE section 11). Errors are `{code, message, requestId}`; each response lists the codes it can carry.',
  });
  const onError = createErrorHandler(deps.logger);
  app.notFound((c) =>
    onError(new ReachError('NOT_FOUND', `no route for ${c.req.method} ${quoteInput(c.req.path)}`), c),
  );
  app.onError(onError);
  return app;
}
