import { createErrorHandler, type ErrorLog, mountApiDocs } from '@agent-reach/sdk/http';
import { quoteInput, ReachError } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Orchestrator } from '../orchestrator.js';
import type { TraceStore } from '../traces/trace-store.js';
import { requireToken } from './auth.js';
import type { OrchestratorMetrics } from './metrics.js';
import { DOCS } from './route-docs.js';
import { runRoutes } from './run-routes.js';
import { type StreamOptions, streamRoute } from './stream-route.js';
import { traceRoutes } from './trace-routes.js';

/** What the API needs; routes only validate, call one verb and map errors. */
export interface ApiDeps {
  orchestrator: Pick<Orchestrator, 'start' | 'run' | 'discover' | 'cancel'>;
  store: Pick<TraceStore, 'listTraces' | 'getTrace' | 'deleteTrace' | 'subscribe'>;
  metrics: OrchestratorMetrics;
  /** Mutating routes need `Authorization: Bearer <token>` when set. */
  apiToken: string | null;
  /** @default 262144 */
  maxBodyBytes?: number;
  /** Whether the process can take runs (store open, not shutting down). @default always */
  ready?: () => Promise<boolean>;
  /** @default silent */
  log?: ErrorLog;
  sse?: StreamOptions;
}

/** The orchestrator's HTTP API (ARCHITECTURE section 11), port 8702 by default. */
export function createApp(deps: ApiDeps): Hono {
  const app = new Hono();
  const guard = requireToken(deps.apiToken);
  const maxSize = deps.maxBodyBytes ?? 262_144;
  app.use(
    '/api/*',
    bodyLimit({
      maxSize,
      onError: () => {
        throw new ReachError('PAYLOAD_TOO_LARGE', `the request body exceeds ${maxSize} bytes`);
      },
    }),
  );
  app.route('/', runRoutes(deps.orchestrator, guard));
  app.route('/', traceRoutes(deps.store, deps.orchestrator, guard));
  app.route('/', streamRoute(deps.store, deps.metrics, deps.sse));
  app.get('/api/discovery', DOCS.discovery, async (c) => c.json(await deps.orchestrator.discover()));
  app.get('/healthz', DOCS.healthz, (c) => c.json({ status: 'ok' }));
  app.get('/readyz', DOCS.readyz, async (c) => {
    const ready = (await deps.ready?.().catch(() => false)) ?? true;
    return c.json({ status: ready ? 'ready' : 'not_ready' }, ready ? 200 : 503);
  });
  app.get('/metrics', DOCS.metrics, async (c) => {
    c.header('content-type', deps.metrics.registry.contentType);
    return c.body(await deps.metrics.registry.metrics());
  });
  mountApiDocs(app, {
    title: 'Agent Reach orchestrator API',
    version: '1',
    description:
      'Runs (start, run, follow over SSE), traces and discovery (ARCHITECTURE section 11). Errors are `{code, message, requestId}`; each response lists the codes it can carry.',
  });
  const onError = createErrorHandler(deps.log ?? (() => {}));
  app.notFound((c) =>
    onError(new ReachError('NOT_FOUND', `no route for ${c.req.method} ${quoteInput(c.req.path)}`), c),
  );
  app.onError(onError);
  return app;
}
