import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import { ReachError } from '../protocol/index.js';

/** A listening HTTP server for a hono app. */
export interface Listener {
  readonly port: number;
  /** Stops accepting, waits up to `graceMs` for open responses, then cuts the remaining connections. */
  close(graceMs: number): Promise<void>;
}

/** Serves `app` on host:port (0 = a free port); throws INVALID_CONFIG naming `port` when it cannot bind. */
export function listen(app: Hono, host: string, port: number): Promise<Listener> {
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host, port });
  return new Promise((resolve, reject) => {
    server.once('error', (cause: Error) => {
      reject(
        new ReachError('INVALID_CONFIG', `cannot listen on ${host}:${port}: ${cause.message}`, {
          data: { key: 'port' },
          cause,
        }),
      );
    });
    server.listen(port, host, () => {
      const bound = (server.address() as AddressInfo).port;
      resolve({
        port: bound,
        close: (graceMs) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => {
              if ('closeAllConnections' in server) server.closeAllConnections();
            }, graceMs);
            server.close(() => {
              clearTimeout(timer);
              done();
            });
            if ('closeIdleConnections' in server) server.closeIdleConnections();
          }),
      });
    });
  });
}
