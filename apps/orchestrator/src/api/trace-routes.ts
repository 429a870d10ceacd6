import { parseOrThrow } from '@agent-reach/sdk/http';
import { ReachError } from '@agent-reach/sdk/protocol';
import { Hono, type MiddlewareHandler } from 'hono';
import type { Orchestrator } from '../orchestrator.js';
import { TraceId } from '../traces/trace-id.js';
import type { TraceStore } from '../traces/trace-store.js';
import { DOCS } from './route-docs.js';

const LIST_KEYS = ['q', 'since', 'until', 'limit', 'cursor'] as const;

/** `GET /api/traces` (filters, paging), `GET /api/traces/{id}`, `DELETE /api/traces/{id}`. */
export function traceRoutes(
  store: Pick<TraceStore, 'listTraces' | 'getTrace' | 'deleteTrace'>,
  orchestrator: Pick<Orchestrator, 'cancel'>,
  guard: MiddlewareHandler,
): Hono {
  const app = new Hono();
  app.get('/api/traces', DOCS.list, async (c) => {
    const query: Record<string, unknown> = {};
    const statuses = (c.req.queries('status') ?? []).flatMap((s) => s.split(',')).filter((s) => s !== '');
    if (statuses.length > 0) query.status = statuses.length === 1 ? statuses[0] : statuses;
    for (const key of LIST_KEYS) {
      const value = c.req.query(key);
      if (value !== undefined) query[key] = value;
    }
    return c.json(await store.listTraces(query));
  });
  app.get('/api/traces/:id', DOCS.get, async (c) => {
    const id = parseOrThrow(TraceId, c.req.param('id'), 'trace id');
    const detail = await store.getTrace(id);
    if (detail === null) throw new ReachError('NOT_FOUND', `no trace ${id}`, { data: { trace_id: id } });
    return c.json(detail);
  });
  app.delete('/api/traces/:id', DOCS.delete, guard, async (c) => {
    const id = parseOrThrow(TraceId, c.req.param('id'), 'trace id');
    // A run still going here is stopped first, so it writes nothing after the delete.
    await orchestrator.cancel(id);
    if (!(await store.deleteTrace(id)))
      throw new ReachError('NOT_FOUND', `no trace ${id}`, { data: { trace_id: id } });
    return c.json({ trace_id: id, deleted: true });
  });
  return app;
}
