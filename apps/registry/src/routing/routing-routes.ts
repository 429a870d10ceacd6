import { OutcomeBatch, ReachError, RouteQuery } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { ConflictsQuery, DOCS } from '../api/route-docs.js';
import type { TokenAuthority } from '../auth/token-authority.js';
import { requestHeader } from '../http/node-incoming.js';
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
  /** Who may report outcomes; without it outcomes are open (tests of routing alone). */
  authority?: Pick<TokenAuthority, 'authorizeOutcomes'>;
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
    // Who reports decides whose window the outcomes land in; check it before reading the body.
    const caller = deps.authority?.authorizeOutcomes(requestHeader(c, 'authorization')) ?? {
      ok: true as const,
      value: { tokenName: null },
    };
    if (!caller.ok) throw caller.error;
    const batch = parseOrThrow(OutcomeBatch, await readJson(c), 'outcome batch');
    return c.json(deps.router.recordOutcomes(batch, caller.value.tokenName), 202);
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
