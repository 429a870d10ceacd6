import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ConsoleConfig } from '../config.js';
import { type ConsoleAppDeps, createConsoleApp } from './create-console-app.js';

/** A console that is listening. */
export interface RunningConsole {
  /** `http://host:port` it serves on. */
  url: string;
  /** Stops taking connections, lets open requests end for `graceMs`, then closes the rest (SSE streams). */
  stop(graceMs?: number): Promise<void>;
}

/** Serves the console on `config.listen` (port 0 picks a free one). */
export async function startConsole(
  config: Pick<ConsoleConfig, 'listen' | 'registryUrl' | 'orchestratorUrl' | 'jaegerUrl'>,
  extra: Omit<ConsoleAppDeps, 'registryUrl' | 'orchestratorUrl' | 'jaegerUrl'> = {},
): Promise<RunningConsole> {
  const app = createConsoleApp({
    registryUrl: config.registryUrl,
    orchestratorUrl: config.orchestratorUrl,
    jaegerUrl: config.jaegerUrl,
    ...extra,
  });
  const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>(
    (resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: config.listen.host, port: config.listen.port }, (info) =>
        resolve({ server: s, address: info }),
      );
      s.once('error', reject);
    },
  );
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
