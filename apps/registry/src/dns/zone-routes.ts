import { ReachError } from '@agent-reach/sdk/protocol';
import { Hono } from 'hono';
import { DOCS } from '../api/route-docs.js';
import type { ZoneExport } from './zone-file.js';

/**
 * `GET /v1/zone`: the live zone as an RFC 1035 zone file (text/plain), streamed a piece at a time from
 * a copy frozen at the serial in `X-Zone-Serial`, so neither the registry nor the responder stops for it.
 */
export function createZoneRoutes(zone: { export(): Promise<ZoneExport> }): Hono {
  const routes = new Hono();
  routes.get('/v1/zone', DOCS.zone, async (c) => {
    const exported = await zone.export().catch((cause: unknown) => {
      throw new ReachError(
        'UNAVAILABLE',
        `the DNS zone cannot be exported now: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    });
    const pieces = exported.chunks[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await pieces.next();
        if (next.done === true) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
      async cancel() {
        await pieces.return?.();
      },
    });
    return c.body(body, 200, {
      'Cache-Control': 'no-store',
      'X-Zone-Serial': String(exported.serial),
      'Content-Type': 'text/plain; charset=utf-8',
    });
  });
  return routes;
}
