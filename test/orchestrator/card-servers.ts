import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildAgentCard, Declaration } from '@agent-reach/sdk/protocol';

/** A lightweight instance for discovery tests: serves its card and `/health`, registered over the registry API. */
export interface CardServer {
  port: number;
  instanceId: string;
  leaseToken: string;
  close(): Promise<void>;
}

/**
 * Starts `count` card servers offering every given capability and registers each with the registry,
 * keeping their leases alive with heartbeats until closed.
 */
export async function startCardServers(
  registryUrl: string,
  count: number,
  capabilities: readonly string[],
  name: string,
): Promise<CardServer[]> {
  const declaration = Declaration.parse({
    agent_name: name,
    domain: 'catalog_demo',
    substitutable: true,
    capabilities: Object.fromEntries(capabilities.map((c) => [c, { serves: [c] }])),
  });
  return Promise.all(
    Array.from({ length: count }, async () => {
      const server: Server = createServer();
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as AddressInfo).port;
      const bytes = Buffer.from(
        JSON.stringify(
          buildAgentCard(declaration, { host: '127.0.0.1', port, scheme: 'http', alpn: ['http/1.1'] }),
        ),
      );
      server.on('request', (req, res) => {
        if (req.url === '/.well-known/agent-card.json') return res.end(bytes);
        if (req.url === '/health') return res.end('{"status":"ok"}');
        res.statusCode = 404;
        res.end();
      });
      const res = await fetch(`${registryUrl}/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          declaration,
          endpoint: { host: '127.0.0.1', port },
          card_sha256: createHash('sha256').update(bytes).digest('base64url'),
        }),
      });
      const reg = (await res.json()) as {
        instance_id: string;
        lease_token: string;
        heartbeat_interval_ms: number;
      };
      if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(reg)}`);
      let seq = 0;
      const beat = setInterval(() => {
        void fetch(`${registryUrl}/v1/agents/${reg.instance_id}/heartbeat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${reg.lease_token}` },
          body: JSON.stringify({ seq: ++seq }),
        }).catch(() => undefined);
      }, reg.heartbeat_interval_ms);
      return {
        port,
        instanceId: reg.instance_id,
        leaseToken: reg.lease_token,
        close: async () => {
          clearInterval(beat);
          await fetch(`${registryUrl}/v1/agents/${reg.instance_id}`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${reg.lease_token}` },
          }).catch(() => undefined);
          await new Promise<void>((r) => server.close(() => r()));
        },
      };
    }),
  );
}
