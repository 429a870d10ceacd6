import { parseOrThrow, readJson } from '@agent-reach/sdk/http';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import type { Orchestrator } from '../orchestrator.js';
import { DOCS } from './route-docs.js';
import { RunBody } from './schemas.js';

/** `POST /api/start` (returns the trace id at once) and `POST /api/run` (waits for the end). */
export function runRoutes(orchestrator: Pick<Orchestrator, 'start' | 'run'>, guard: MiddlewareHandler): Hono {
  const app = new Hono();
  const request = async (c: Context) => {
    const body = parseOrThrow(RunBody, await readJson(c), 'run request');
    return {
      task: (body.text ?? body.task)!,
      ...(body.provider === undefined ? {} : { provider: body.provider }),
    };
  };
  app.post('/api/start', DOCS.start, guard, async (c) => {
    const { traceId } = await orchestrator.start(await request(c));
    return c.json({ trace_id: traceId, status: 'started' }, 202);
  });
  app.post('/api/run', DOCS.run, guard, async (c) => c.json(await orchestrator.run(await request(c)), 200));
  return app;
}
