import { createErrorHandler, type ErrorLog } from '@agent-reach/sdk/http';
import { quoteInput, ReachError } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ConsoleMetrics } from './console-metrics.js';
import { proxyTo } from './proxy.js';
import { staticFiles } from './static-files.js';
import { buildUi, type UiFiles } from './ui-bundle.js';

/** What the console is built from: the two APIs it fronts and what the UI needs to know. */
export interface ConsoleAppDeps {
  /** The registry's base URL, e.g. `http://127.0.0.1:8701`. */
  registryUrl: string;
  /** The orchestrator's base URL, e.g. `http://127.0.0.1:8702`. */
  orchestratorUrl: string;
  /** Jaeger's UI; trace views link to `<jaegerUrl>/trace/<id>` when set. @default null */
  jaegerUrl?: string | null;
  /** The built UI. @default `buildUi()` of the `ui/` source beside `server/`, started at once */
  ui?: Promise<UiFiles>;
  /** Largest request body passed upstream. @default 1048576 */
  maxBodyBytes?: number;
  /** @default silent */
  log?: ErrorLog;
  /** Served at `/metrics`. @default metrics without the process's defaults */
  metrics?: ConsoleMetrics;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The console's hono app: the static UI, `/api/*` proxied to the orchestrator (SSE included) and
 * `/registry/*` to the registry with the prefix removed, so the browser talks to one origin.
 */
export function createConsoleApp(deps: ConsoleAppDeps): Hono {
  const app = new Hono();
  const maxSize = deps.maxBodyBytes ?? 1_048_576;
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw new ReachError('PAYLOAD_TOO_LARGE', `the request body exceeds ${maxSize} bytes`);
    },
  });
  const metrics = deps.metrics ?? new ConsoleMetrics();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  // Ready once the UI it serves is built (a source tree that lost it, or a bundle that fails, is not).
  const ui = deps.ui ?? buildUi();
  const uiBuilt = ui.then(
    (files) => files.has('/index.html') && files.has('/app.js'),
    () => false,
  );
  app.get('/readyz', async (c) => {
    const built = await uiBuilt;
    return c.json({ status: built ? 'ready' : 'not_ready', checks: { ui: built } }, built ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'content-type': contentType });
  });
  // What the UI cannot learn from the APIs: where Jaeger lives.
  app.get('/console/settings', (c) => c.json({ jaeger_url: deps.jaegerUrl ?? null }));
  app.use('/api/*', limit);
  app.use('/registry/*', limit);
  app.all(
    '/api/*',
    proxyTo({ name: 'orchestrator', baseUrl: trimSlash(deps.orchestratorUrl), stripPrefix: '', metrics }),
  );
  app.all(
    '/registry/*',
    proxyTo({ name: 'registry', baseUrl: trimSlash(deps.registryUrl), stripPrefix: '/registry', metrics }),
  );
  app.use('*', staticFiles(ui));
  const onError = createErrorHandler(deps.log ?? (() => {}));
  app.notFound((c) =>
    onError(new ReachError('NOT_FOUND', `no route for ${c.req.method} ${quoteInput(c.req.path)}`), c),
  );
  app.onError(onError);
  return app;
}
