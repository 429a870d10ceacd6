import type { AddressInfo } from 'node:net';
import { connectionServerOptions, DEFAULT_CONNECTION_LIMITS, guardConnections } from '@agent-reach/sdk/node';
import { serve } from '@hono/node-server';
import type { ConsoleConfig } from '../config.js';
import { ConsoleMetrics } from './console-metrics.js';
import { type ConsoleAppDeps, createConsoleApp } from './create-console-app.js';
import { buildUi } from './ui-bundle.js';

/** A console that is listening. */
export interface RunningConsole {
  /** `http://host:port` it serves on. */
  url: string;
  /** Stops taking connections, lets open requests end for `graceMs`, then closes the rest (SSE streams). */
  stop(graceMs?: number): Promise<void>;
}

/** Serves the console on `config.listen` (port 0 picks a free one). */
export async function startConsole(
  config: Pick<ConsoleConfig, 'listen' | 'registryUrl' | 'orchestratorUrl' | 'jaegerUrl'> &
    Partial<Pick<ConsoleConfig, 'connections'>>,
  extra: Omit<ConsoleAppDeps, 'registryUrl' | 'orchestratorUrl' | 'jaegerUrl'> = {},
): Promise<RunningConsole> {
  const limits = config.connections ?? DEFAULT_CONNECTION_LIMITS;
  const metrics = extra.metrics ?? new ConsoleMetrics();
  // The UI builds while the port opens (until then /readyz says not_ready and UI requests wait for it);
  // a bundle that fails stops the start with esbuild's reason.
  const ui = extra.ui ?? buildUi();
  ui.catch(() => {});
  const app = createConsoleApp({
    registryUrl: config.registryUrl,
    orchestratorUrl: config.orchestratorUrl,
    jaegerUrl: config.jaegerUrl,
    ...extra,
    ui,
    metrics,
  });
  const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>(
    (resolve, reject) => {
      const s = serve(
        {
          fetch: app.fetch,
          hostname: config.listen.host,
          port: config.listen.port,
          serverOptions: connectionServerOptions(limits),
        },
        (info) => resolve({ server: s, address: info }),
      );
      metrics.watchConnections(guardConnections(s as import('node:http').Server, limits));
      s.once('error', reject);
    },
  );
  try {
    await ui;
  } catch (error) {
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    stop: (graceMs = 2000) =>
      new Promise<void>((resolve) => {
        const http = server as import('node:http').Server;
        // Live SSE streams never end by themselves; cut them after the grace period.
        const timer = setTimeout(() => http.closeAllConnections(), graceMs);
        http.closeIdleConnections();
        http.close(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
