import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { expect } from 'vitest';
import { type RunningEtcd, startEtcd } from '../harness/etcd.js';
import { TIMEOUT_MS } from './e2e-config.js';

/** SkyDNS TTLs are the lease's, in seconds. */
const TTL = TIMEOUT_MS / 1000;

/** Where an instance is published: its endpoint and the capabilities it offers. */
export interface Published {
  instanceId: string;
  host: string;
  port: number;
  capabilities: string[];
}

/** One store the registry process runs on, and how the test looks into it from outside. */
export interface StoreBackend {
  readonly name: 'embedded' | 'etcd';
  /** The config file's `storage` section. */
  readonly storage: Record<string, unknown>;
  /** Every stored key (registration record, DNS data) that names the instance; empty once it is gone (its id's identity record may stay). */
  keysOf(instanceId: string, registryUrl: string): Promise<string[]>;
  /** Every live key the store holds for registrations and DNS, for before/after comparisons. */
  snapshot(registryUrl: string): Promise<string[]>;
  /** Asserts the instance is published in the store's DNS format. */
  expectPublished(instance: Published, registryUrl: string): Promise<void>;
  close(): Promise<void>;
}

/** Zone-file lines of the registry's live zone (`GET /v1/zone`), without the SOA (its serial moves). */
async function zoneLines(registryUrl: string): Promise<string[]> {
  const res = await fetch(`${registryUrl}/v1/zone`);
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith(';') && !/\sSOA\s/.test(line));
}

/**
 * The embedded store lives inside the registry process (its journal is locked), so the test sees it
 * through the zone the registry builds from the store's watch.
 */
export async function embeddedBackend(): Promise<StoreBackend> {
  const dir = await mkdtemp(join(tmpdir(), 'reach-e2e-embedded-'));
  return {
    name: 'embedded',
    storage: { type: 'embedded', path: join(dir, 'data'), sync_interval: 1 },
    async keysOf(instanceId, registryUrl) {
      return (await zoneLines(registryUrl)).filter((line) => line.includes(instanceId));
    },
    async snapshot(registryUrl) {
      // The leader republishes SRV weights and SVCB priorities from load: compare the records, not those figures.
      return (await zoneLines(registryUrl)).map((line) =>
        line.replace(/(\sSRV\s+)\d+ \d+ /, '$1').replace(/(\sSVCB\s+)\d+ /, '$1'),
      );
    },
    async expectPublished(instance, registryUrl) {
      const lines = (await zoneLines(registryUrl)).filter((line) => line.includes(instance.instanceId));
      const target = `${instance.instanceId}.agents.internal.`;
      const a = lines.find((line) => line.startsWith(target) && /\sA\s/.test(line));
      expect(a, lines.join('\n')).toMatch(new RegExp(`\\sA\\s+${instance.host.replaceAll('.', '\\.')}$`));
      for (const capability of [...instance.capabilities, 'agent']) {
        const owner = `_${capability}._tcp.agents.internal.`;
        const srv = lines.find((line) => line.startsWith(owner) && /\sSRV\s/.test(line));
        expect(srv, `${owner} SRV in\n${lines.join('\n')}`).toMatch(
          new RegExp(`\\sSRV\\s+\\d+ \\d+ ${instance.port} ${target.replaceAll('.', '\\.')}$`),
        );
      }
    },
    async close() {
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Real etcd (Debian's etcd-server): the test reads the keys with its own etcd3 client. */
export async function etcdBackend(): Promise<StoreBackend> {
  const etcd: RunningEtcd = await startEtcd();
  const client = new Etcd3({ hosts: etcd.endpoint });
  const all = async () => (await client.getAll().prefix('/').exec()).kvs;
  return {
    name: 'etcd',
    storage: { type: 'etcd', etcd: { endpoints: [etcd.endpoint] } },
    async keysOf(instanceId) {
      // The id's identity record outlives the lease on purpose (a re-registration keeps the id).
      return (await all())
        .map((kv) => kv.key.toString())
        .filter((key) => key.includes(instanceId) && !key.startsWith('/reach/identities/'));
    },
    async snapshot() {
      // Election keys belong to the registry replicas, not to registrations.
      return (await all())
        .map((kv) => kv.key.toString())
        .filter(
          (key) =>
            key.startsWith('/reach/instances/') ||
            key.startsWith('/reach/declarations/') ||
            key.startsWith('/skydns/'),
        )
        .sort();
    },
    async expectPublished(instance) {
      const kvs = (await all()).filter((kv) => kv.key.toString().includes(instance.instanceId));
      const byKey = Object.fromEntries(
        kvs.map((kv) => [kv.key.toString(), { value: kv.value.toString(), lease: kv.lease.toString() }]),
      );
      const id = instance.instanceId;
      const record = byKey[`/reach/instances/${id}`];
      expect(record, Object.keys(byKey).join('\n')).toBeDefined();
      const lease = record!.lease;
      expect(lease).not.toBe('0');
      // CoreDNS's etcd plugin reads a name's labels reversed under /skydns/.
      const srv = { host: `${id}.agents.internal`, port: instance.port, ttl: TTL };
      const expected: Record<string, Record<string, unknown>> = {
        [`/skydns/internal/agents/${id}`]: { host: instance.host, ttl: TTL },
        [`/skydns/internal/agents/_tcp/_agent/${id}`]: srv,
      };
      for (const capability of instance.capabilities) {
        expected[`/skydns/internal/agents/_tcp/_${capability}/${id}`] = srv;
        expected[`/skydns/internal/agents/_agents/_a2a/_${capability}/${id}`] = {
          text: `capabilities=${capability}`,
          ttl: TTL,
        };
        expected[`/skydns/internal/agents/_agents/_index/_${capability}/${id}`] = {
          text: `agents=${capability}:a2a`,
          ttl: TTL,
        };
      }
      // A described capability also gets a `description=` TXT beside its `capabilities=` one.
      for (const capability of instance.capabilities) {
        const key = `/skydns/internal/agents/_agents/_a2a/_${capability}/_description/${id}`;
        if (byKey[key] !== undefined)
          expected[key] = { text: expect.stringMatching(/^description=./), ttl: TTL };
      }
      const skydns = Object.keys(byKey).filter((key) => key.startsWith('/skydns/'));
      expect(skydns.sort()).toEqual(Object.keys(expected).sort());
      for (const [key, fields] of Object.entries(expected)) {
        const message = JSON.parse(byKey[key]!.value) as Record<string, unknown>;
        expect(message, key).toMatchObject(fields);
        if ('port' in fields) {
          // SRV messages carry an unsigned 16-bit priority and weight.
          expect(Number.isInteger(message.priority) && (message.priority as number) >= 0, key).toBe(true);
          expect(Number.isInteger(message.weight) && (message.weight as number) >= 1, key).toBe(true);
          expect(Object.keys(message).sort()).toEqual(['host', 'port', 'priority', 'ttl', 'weight']);
        }
        // Everything of the instance lives and dies with its one lease.
        expect(byKey[key]!.lease, key).toBe(lease);
      }
    },
    async close() {
      client.close();
      await etcd.stop();
    },
  };
}

/** The stores every e2e scenario runs on. */
export const STORES: Array<{ name: StoreBackend['name']; open: () => Promise<StoreBackend> }> = [
  { name: 'embedded', open: embeddedBackend },
  { name: 'etcd', open: etcdBackend },
];
