import { Hono } from 'hono';
import { DOCS, GovernanceReportQuery } from '../api/route-docs.js';
import { parseOrThrow } from '../http/validation.js';
import type { ReportReader } from './report-reader.js';

/** `GET /v1/reports/governance?window=7d` (ARCHITECTURE section 11). */
export function createGovernanceRoutes(reader: Pick<ReportReader, 'report'>): Hono {
  const app = new Hono();
  app.get('/v1/reports/governance', DOCS.governance, async (c) => {
    const query = parseOrThrow(GovernanceReportQuery, c.req.query(), 'report query');
    return c.json(await reader.report(query.window));
  });
  return app;
}
