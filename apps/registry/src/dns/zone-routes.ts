import { Hono } from 'hono';
import { DOCS } from '../api/route-docs.js';
import type { SnapshotProvider } from './packet-handler.js';
import { exportZoneFile } from './zone-file.js';

/** `GET /v1/zone`: the live zone as an RFC 1035 zone file (text/plain). */
export function createZoneRoutes(zone: SnapshotProvider): Hono {
  const routes = new Hono();
  routes.get('/v1/zone', DOCS.zone, (c) => {
    const snapshot = zone.snapshot();
    c.header('Cache-Control', 'no-store');
    c.header('X-Zone-Serial', String(snapshot.serial));
    return c.text(exportZoneFile(snapshot), 200, { 'Content-Type': 'text/plain; charset=utf-8' });
  });
  return routes;
}
