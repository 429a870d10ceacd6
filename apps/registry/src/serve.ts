import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectionServerOptions, guardConnections } from '@agent-reach/sdk/node';
import { getRequestListener } from '@hono/node-server';
import { createFastPaths } from './api/fast-paths.js';
import { createRegistry, type Registry, type RegistryOptions } from './registry.js';

/** A registry listening on HTTP. */
export interface RunningRegistry extends Registry {
  /** `http://host:port` of the listening server. */
  url: string;
  port: number;
  server: Server;
  /** Closes the HTTP server, then the registry (sweeper, watch); leaves the store open. */
  stop(): Promise<void>;
}

/** Builds a registry and serves it on `listen` (default: `control_plane.listen`; port 0 picks a free one). */
export async function startRegistry(
  options: RegistryOptions & {
    listen?: { host: string; port: number };
    /** Runs after the registry is built and before HTTP listens (e.g. the DNS responder), so /readyz never precedes it. */
    beforeListen?: (registry: Registry) => Promise<void>;
    /**
     * Serve heartbeats and route queries on their node:http fast paths (`api/fast-paths.ts`, the one seam
     * of docs/benchmarks.md, "HTTP fast paths"); false sends every request through hono. @default true
     */
    fastPaths?: boolean;
  },
): Promise<RunningRegistry> {
  const registry = await createRegistry(options);
  const { host, port } = options.listen ?? options.config.listen;
  const viaHono = getRequestListener(registry.app.fetch, { hostname: host });
  // The same policy object as the hono app's: one body limit, one set of request metrics.
  const fastPath = createFastPaths({
    verbs: registry.verbs,
    router: registry.routing.router,
    policy: registry.policy,
    logger: registry.logger,
  });
  const fast = options.fastPaths ?? true;
  const limits = options.config.connections;
  const server = createServer(connectionServerOptions(limits), (req, res) => {
    if (!fast || !fastPath(req, res)) void viaHono(req, res);
  });
  registry.metrics.watchConnections('http', guardConnections(server, limits));
  try {
    await options.beforeListen?.(registry);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await registry.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await registry.close();
    })();
    return stopped;
  };
  return { ...registry, url: `http://${shownHost}:${address.port}`, port: address.port, server, stop };
}
