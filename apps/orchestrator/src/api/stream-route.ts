import { parseOrThrow } from '@agent-reach/sdk/http';
import { ReachError } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { TraceEvent } from '../traces/events.js';
import { TraceId } from '../traces/trace-id.js';
import type { TraceStore } from '../traces/trace-store.js';
import type { OrchestratorMetrics } from './metrics.js';
import { DOCS } from './route-docs.js';
import { AfterSeq } from './schemas.js';

/** SSE timing. */
export interface StreamOptions {
  /** A comment line this often keeps proxies from closing an idle stream. @default 15000 */
  keepAliveMs?: number;
  /** With no event for this long the stream says `stream_timeout` and ends (seed 3.7). @default 420000 */
  idleTimeoutMs?: number;
}

/**
 * `GET /api/stream/{id}`: replays the events after `Last-Event-ID` (or `?after=`), then pushes new
 * ones as the store's subscription delivers them (LISTEN/NOTIFY, never polling). Each event's SSE
 * id is its seq; `event: done` follows `trace_finished`.
 */
export function streamRoute(
  store: Pick<TraceStore, 'getTrace' | 'subscribe'>,
  metrics: OrchestratorMetrics | undefined,
  options: StreamOptions = {},
): Hono {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 420_000;
  const app = new Hono();
  app.get('/api/stream/:id', DOCS.stream, async (c) => {
    const id = parseOrThrow(TraceId, c.req.param('id'), 'trace id');
    const resume = c.req.header('last-event-id') ?? c.req.query('after');
    const after =
      resume === undefined || resume === '' ? 0 : parseOrThrow(AfterSeq, resume, 'Last-Event-ID / after');
    const detail = await store.getTrace(id);
    if (detail === null) throw new ReachError('NOT_FOUND', `no trace ${id}`, { data: { trace_id: id } });

    return streamSSE(c, async (stream) => {
      const queue: TraceEvent[] = [];
      let wake: (() => void) | null = null;
      const nudge = () => {
        wake?.();
        wake = null;
      };
      let open = true;
      stream.onAbort(() => {
        open = false;
        nudge();
      });
      metrics?.sseClients.inc();
      const subscription = await store.subscribe(
        id,
        (event) => {
          queue.push(event);
          nudge();
        },
        { afterSeq: after },
      );
      try {
        // Reconnected after the end: nothing left to replay.
        if (detail.trace.status !== 'running' && detail.trace.last_seq <= after) {
          await stream.writeSSE({ event: 'done', data: JSON.stringify({ status: detail.trace.status }) });
          return;
        }
        let lastActivity = performance.now();
        while (open) {
          while (queue.length > 0 && open) {
            const e = queue.shift()!;
            lastActivity = performance.now();
            await stream.writeSSE({
              id: String(e.seq),
              data: JSON.stringify({
                trace_id: e.trace_id,
                seq: e.seq,
                type: e.type,
                at: e.at,
                data: e.data,
              }),
            });
            if (e.type === 'trace_finished') {
              await stream.writeSSE({ event: 'done', data: JSON.stringify({ status: e.data.status }) });
              return;
            }
          }
          if (!open) return;
          const timedOut = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), keepAliveMs);
            wake = () => {
              clearTimeout(timer);
              resolve(false);
            };
          });
          if (timedOut && open && queue.length === 0) {
            if (performance.now() - lastActivity >= idleTimeoutMs) {
              await stream.writeSSE({
                event: 'stream_timeout',
                data: JSON.stringify({ idle_ms: idleTimeoutMs }),
              });
              return;
            }
            await stream.write(': keep-alive\n\n');
          }
        }
      } finally {
        subscription.close();
        metrics?.sseClients.dec();
      }
    });
  });
  return app;
}
