import { OutcomeBatch, ReachError, RouteQuery } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { ConflictsQuery, DOCS } from '../api/route-docs.js';
import { readJson } from '../http/read-json.js';
import { parseOrThrow } from '../http/validation.js';
import type { ConflictReporter } from './conflict-report.js';
import { toConflictView } from './conflicts.js';
import type { Router } from './router.js';

/** What the routing API calls. */
export interface RoutingRoutesDeps {
  router: Pick<Router, 'route' | 'recordOutcomes' | 'stats' | 'conflicts'>;
  /** The daily conflict report; without it `?report=daily` answers NOT_FOUND. */
  reporter?: Pick<ConflictReporter, 'read' | 'today'>;
}

/**
 * The routing API (ARCHITECTURE section 11): `POST /v1/route`, `POST /v1/outcomes` (202),
 * `GET /v1/conflicts` (`?report=daily[&date=yyyy-mm-dd]` for the daily report) and `GET /v1/routing/stats`.
 * Errors are thrown as ReachError for the app's error handler.
 */
export function createRoutingRoutes(deps: RoutingRoutesDeps): Hono {
  const app = new Hono();

  app.post('/v1/route', DOCS.route, async (c) => {
    const query = parseOrThrow(RouteQuery, await readJson(c), 'route query');
    return c.json(deps.router.route(query));
  });

  app.post('/v1/outcomes', DOCS.outcomes, async (c) => {
    const batch = parseOrThrow(OutcomeBatch, await readJson(c), 'outcome batch');
    return c.json(deps.router.recordOutcomes(batch), 202);
  });

  app.get('/v1/conflicts', DOCS.conflicts, async (c) => {
    const query = parseOrThrow(ConflictsQuery, c.req.query(), 'conflicts query');
    if (query.report !== 'daily') {
      if (query.date !== undefined) throw new ReachError('VALIDATION_FAILED', 'date needs report=daily');
      return c.json({ conflicts: deps.router.conflicts.list().map(toConflictView) });
    }
    const date = query.date ?? deps.reporter?.today();
    const report = date === undefined ? null : await deps.reporter?.read(date);
    if (!report)
      throw new ReachError('NOT_FOUND', `no conflict report for ${date ?? 'today'}`, { data: { date } });
    return c.json(report);
  });

  app.get('/v1/routing/stats', DOCS.stats, (c) => c.json(deps.router.stats()));

  return app;
}
