import { ReachError } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import { DOCS } from './route-docs.js';

/** What `/readyz` reports: ready only when every check passes. */
export type ReadinessCheck = () => Promise<Record<string, boolean>>;

/** `GET /healthz` (the process answers), `GET /readyz` (store reachable, cache primed), `GET /metrics`. */
export function probeRoutes(metrics: RegistryMetrics, readiness: ReadinessCheck): Hono {
  const app = new Hono();
  app.get('/healthz', DOCS.healthz, (c) => c.json({ status: 'ok' }));
  app.get('/readyz', DOCS.readyz, async (c) => {
    const checks = await readiness();
    const failing = Object.entries(checks)
      .filter(([, passed]) => !passed)
      .map(([name]) => name);
    if (failing.length > 0) {
      throw new ReachError('UNAVAILABLE', `not ready: ${failing.join(', ')}`, { data: { checks } });
    }
    return c.json({ status: 'ready', checks });
  });
  app.get('/metrics', DOCS.metrics, async (c) => {
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'content-type': contentType });
  });
  return app;
}
