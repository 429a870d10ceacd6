import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createErrorHandler, type ErrorLog } from '@agent-reach/sdk/http';
import { quoteInput, ReachError } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ConsoleMetrics } from './console-metrics.js';
import { proxyTo } from './proxy.js';
import { staticFiles } from './static-files.js';

/** The UI's files, served as they are (no build step). */
export const UI_DIR = fileURLToPath(new URL('../ui/', import.meta.url));

/** What the console is built from: the two APIs it fronts and what the UI needs to know. */
export interface ConsoleAppDeps {
  /** The registry's base URL, e.g. `http://127.0.0.1:8701`. */
  registryUrl: string;
  /** The orchestrator's base URL, e.g. `http://127.0.0.1:8702`. */
  orchestratorUrl: string;
  /** Jaeger's UI; trace views link to `<jaegerUrl>/trace/<id>` when set. @default null */
  jaegerUrl?: string | null;
  /** @default the `ui/` folder beside `server/` */
  uiDir?: string;
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
  // Ready once the UI it serves is there (an image or a build that lost it is not).
  const uiIndex = join(deps.uiDir ?? UI_DIR, 'index.html');
  app.get('/readyz', (c) => {
    const ui = existsSync(uiIndex);
    return c.json({ status: ui ? 'ready' : 'not_ready', checks: { ui } }, ui ? 200 : 503);
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
  app.use('*', staticFiles(deps.uiDir ?? UI_DIR));
  const onError = createErrorHandler(deps.log ?? (() => {}));
  app.notFound((c) =>
    onError(new ReachError('NOT_FOUND', `no route for ${c.req.method} ${quoteInput(c.req.path)}`), c),
  );
  app.onError(onError);
  return app;
}
