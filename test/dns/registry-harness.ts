import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReachConfigInput } from '@agent-reach/config';
import {
  type DnsResponder,
  openEmbeddedStore,
  type RegistryStore,
  type RunningRegistry,
  registryConfigFrom,
  registryLogger,
  startRegistry,
  startRegistryDns,
} from '@agent-reach/registry';

/** A registry (real HTTP API, embedded store unless one is given) with its DNS responder, on free ports. */
export interface RegistryWithDns {
  registry: RunningRegistry;
  dns: DnsResponder;
  store: RegistryStore;
  /** `POST /v1/agents` over HTTP; returns the registration answer. */
  register(body: unknown): Promise<{ instance_id: string; lease_token: string }>;
  deregister(instanceId: string, leaseToken: string): Promise<void>;
  stop(): Promise<void>;
}

/** A `POST /v1/agents` body: one agent offering `capabilities` (each also serving `serves`). */
export function agentBody(options: {
  name: string;
  port: number;
  host?: string;
  capabilities: string[];
  serves?: string[];
  priority?: number;
  /** Each capability's description (published in its DNS-AID TXT). */
  description?: string;
}) {
  return {
    declaration: {
      agent_name: options.name,
      domain: 'text_processing',
      priority: options.priority ?? 50,
      capabilities: Object.fromEntries(
        options.capabilities.map((c) => [
          c,
          {
            input: ['text'],
            output: ['text'],
            serves: options.serves ?? [],
            ...(options.description ? { description: options.description } : {}),
          },
        ]),
      ),
    },
    endpoint: { host: options.host ?? '127.0.0.1', port: options.port },
    card_sha256: createHash('sha256').update(`card of ${options.name}`).digest('base64url'),
  };
}

/** Starts the registry over HTTP on 127.0.0.1:0 and its responder on 127.0.0.1:0. */
export async function startRegistryWithDns(
  config: ReachConfigInput = {},
  openStore?: () => Promise<RegistryStore>,
): Promise<RegistryWithDns> {
  const dir = await mkdtemp(join(tmpdir(), 'reach-dns-'));
  const store = openStore ? await openStore() : await openEmbeddedStore({ path: dir });
  const registry = await startRegistry({
    config: registryConfigFrom(config),
    store,
    logger: registryLogger('silent'),
    listen: { host: '127.0.0.1', port: 0 },
  });
  const dns = await startRegistryDns(registry, { host: '127.0.0.1', port: 0 });
  return {
    registry,
    dns,
    store,
    async register(body) {
      const res = await fetch(`${registry.url}/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { instance_id: string; lease_token: string };
      if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(json)}`);
      return json;
    },
    async deregister(instanceId, leaseToken) {
      const res = await fetch(`${registry.url}/v1/agents/${instanceId}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${leaseToken}` },
      });
      if (!res.ok) throw new Error(`deregister failed: ${res.status} ${await res.text()}`);
    },
    async stop() {
      await dns.stop();
      await registry.stop();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
