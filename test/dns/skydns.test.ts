import { isIP } from 'node:net';
import { openEtcdStore, skydnsName, skydnsPath } from '@agent-reach/registry';
import { indexedCapabilities } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';
import { tcpQuery } from './dns-client.js';
import { agentBody, type RegistryWithDns, startRegistryWithDns } from './registry-harness.js';
import { untilStable } from './stable.js';

interface SkydnsMessage {
  host?: string;
  port?: number;
  priority?: number;
  weight?: number;
  text?: string;
  ttl?: number;
}

const cluster = useEtcd();
let env: RegistryWithDns;
let gone: string;

/**
 * Whether CoreDNS's etcd plugin finds `name` (plugin/etcd/etcd.go `get`): some key under its path, or
 * the path itself. A name it finds answers NODATA for a type it has nothing of; any other, NXDOMAIN.
 */
function coreDnsHasName(keys: readonly string[], name: string): boolean {
  const path = skydnsPath(name);
  return keys.some((key) => key === path || key.startsWith(`${path}/`));
}

/** CoreDNS's documented rule (etcd plugin, `msg.Domain`): drop the path prefix, reverse the labels. */
function keyToName(key: string): string {
  const labels = key
    .replace(/^\/skydns\//, '')
    .replace(/\/$/, '')
    .split('/')
    .reverse();
  return `${labels.join('.')}.`;
}

const parent = (name: string) => name.slice(name.indexOf('.') + 1);

/** CoreDNS's SRV weight: each record's share of its priority's total, in percent, at least 1. */
function coreDnsWeights(records: Array<{ priority: number; weight: number }>): number[] {
  const totals = new Map<number, number>();
  for (const r of records)
    totals.set(r.priority, (totals.get(r.priority) ?? 0) + (r.weight === 0 ? 100 : r.weight));
  return records.map((r) =>
    Math.max(1, Math.floor((100 / totals.get(r.priority)!) * (r.weight === 0 ? 100 : r.weight))),
  );
}

async function skydnsKeys(): Promise<Array<{ key: string; value: SkydnsMessage }>> {
  const all = await cluster.raw.getAll().prefix('/skydns/').strings();
  return Object.entries(all).map(([key, value]) => ({ key, value: JSON.parse(value) as SkydnsMessage }));
}

beforeAll(async () => {
  env = await startRegistryWithDns({}, () =>
    openEtcdStore({ endpoints: [cluster.etcd.endpoint], electionTtlSeconds: 2, onError: () => undefined }),
  );
  await env.register(
    agentBody({
      name: 'summarizer-v2',
      port: 8001,
      capabilities: ['summarize'],
      serves: ['writing'],
      priority: 80,
      description: 'Summarise a text.',
    }),
  );
  await env.register(
    agentBody({
      name: 'summarizer-v2',
      port: 8011,
      capabilities: ['summarize'],
      serves: ['writing'],
      priority: 80,
      description: 'Summarise a text.',
    }),
  );
  await env.register(
    agentBody({
      name: 'planner',
      host: 'fd00::7',
      port: 8002,
      capabilities: ['plan'],
      serves: ['planning'],
      priority: 5,
    }),
  );
  const leaving = await env.register(
    agentBody({ name: 'leaver', port: 8003, capabilities: ['summarize'], priority: 30 }),
  );
  await env.deregister(leaving.instance_id, leaving.lease_token);
  gone = leaving.instance_id;
  await new Promise((resolve) => setTimeout(resolve, 200));
});

afterAll(async () => {
  await env?.stop();
});

describe('the SkyDNS keys in etcd against the responder', () => {
  it('every key resolves, by CoreDNS’s path-to-name rule, to the data the responder serves', async () => {
    // The leader republishes weights every few seconds; a publication between two reads is retried.
    await untilStable(keysMatchAnswers);
  });

  it('the responder serves no SRV or address that the SkyDNS keys lack, and CoreDNS’s weight shares agree', async () => {
    await untilStable(answersMatchKeys);
  });

  it('every name with an SVCB answer exists in the projection, so CoreDNS answers NODATA there for other types', async () => {
    const keys = (await skydnsKeys()).map(({ key }) => key);
    const svcbOwners = [...env.registry.zone.snapshot().nodes.values()]
      .filter((node) => node.rrsets.has(64))
      .map((node) => `${node.name}.agents.internal`);
    expect(svcbOwners.length).toBeGreaterThanOrEqual(3 + 3);
    for (const name of svcbOwners) {
      expect(coreDnsHasName(keys, name), name).toBe(true);
      // A TXT there is what makes it exist: CoreDNS's A/AAAA/SRV find no host and answer NODATA.
      const hasTxt = (await skydnsKeys()).some(
        ({ key, value }) => value.text !== undefined && key.startsWith(`${skydnsPath(name)}/`),
      );
      if (name.startsWith('_')) expect(hasTxt, name).toBe(true);
    }
    expect(coreDnsHasName(keys, 'nobody.agents.internal')).toBe(false);
  });

  it('the apex NS CoreDNS builds names a key that exists, with the address of the DNS server callers use', async () => {
    // CoreDNS's NS answer (plugin.NS) reads the address messages under ns.dns.<zone>; the target it
    // serves is each key's own name, and its SOA MNAME is ns.dns.<zone> itself.
    const all = await skydnsKeys();
    const ns = all.filter(({ key }) => key.startsWith(`${skydnsPath('ns.dns.agents.internal')}/`));
    expect(ns).toHaveLength(1);
    const [{ key, value }] = ns as [{ key: string; value: SkydnsMessage }];
    expect(isIP(value.host ?? '')).not.toBe(0);
    expect(value.host).toBe('127.0.0.1');
    const target = skydnsName(key);
    expect(target).toBe('ns.ns.dns.agents.internal.');
    expect(
      coreDnsHasName(
        all.map((k) => k.key),
        target,
      ),
    ).toBe(true);
    expect(
      coreDnsHasName(
        all.map((k) => k.key),
        'ns.dns.agents.internal',
      ),
    ).toBe(true);
  });

  it('a deregistered instance has neither SkyDNS keys nor answers', async () => {
    expect((await skydnsKeys()).filter(({ key }) => key.endsWith(`/${gone}`))).toEqual([]);
    expect((await tcpQuery(env.dns.port, `${gone}.agents.internal`, 'A')).rcode).toBe('NXDOMAIN');
  });
});

async function keysMatchAnswers(): Promise<void> {
  const keys = await skydnsKeys();
  expect(keys.length).toBeGreaterThan(10);
  const counts = { address: 0, srv: 0, txt: 0, dnsAid: 0 };
  for (const { key, value } of keys) {
    const name = keyToName(key);
    expect(skydnsName(key), key).toBe(name);
    if (key.startsWith(`${skydnsPath('ns.dns.agents.internal')}/`)) {
    } else if (value.host !== undefined && isIP(value.host) !== 0) {
      // An address message answers A/AAAA at its own name.
      const reply = await tcpQuery(env.dns.port, name, isIP(value.host) === 4 ? 'A' : 'AAAA');
      expect(
        reply.answers.map((rr) => rr.data),
        key,
      ).toEqual([value.host]);
      counts.address++;
    } else if (value.host !== undefined) {
      // A service message is one SRV of the name above it, its host the target.
      const reply = await tcpQuery(env.dns.port, parent(name), 'SRV');
      expect(
        reply.answers.map((rr) => rr.data),
        key,
      ).toContainEqual({
        priority: value.priority,
        weight: value.weight,
        port: value.port,
        target: value.host.replace(/\.$/, ''),
      });
      counts.srv++;
    } else if (value.text !== undefined && name.endsWith('._index._agents.agents.internal.')) {
      // An index message joins the TXT of `_index._agents`, the name CoreDNS gathers them under.
      expect(value.text, key).toMatch(/^agents=[a-z0-9_]+:a2a$/);
      const reply = await tcpQuery(env.dns.port, '_index._agents.agents.internal', 'TXT');
      const strings = reply.answers.flatMap((rr) => (rr.data as Buffer[]).map(String));
      expect(indexedCapabilities(strings), key).toEqual(
        expect.arrayContaining(indexedCapabilities([value.text])),
      );
      counts.txt++;
    } else if (value.text !== undefined && name.endsWith('._a2a._agents.agents.internal.')) {
      // A DNS-AID TXT message of `_<cap>._a2a._agents`: the same strings as the responder's TXT there.
      const owner = /(_[a-z0-9_]+\._a2a\._agents\.agents\.internal\.)$/.exec(name)![1]!;
      const reply = await tcpQuery(env.dns.port, owner, 'TXT');
      const strings = reply.answers.flatMap((rr) => (rr.data as Buffer[]).map(String));
      expect(strings, key).toContain(value.text);
      counts.dnsAid++;
    } else {
      throw new Error(`${key} is no SkyDNS message CoreDNS can serve: ${JSON.stringify(value)}`);
    }
  }
  expect(counts.address).toBe(3);
  expect(counts.srv).toBeGreaterThanOrEqual(3 * 3);
  expect(counts.txt).toBeGreaterThanOrEqual(4);
  // capabilities= for every capability of every instance, description= for the described ones.
  expect(counts.dnsAid).toBeGreaterThanOrEqual(6 + 4);
}

async function answersMatchKeys(): Promise<void> {
  const keys = await skydnsKeys();
  const byName = new Map<string, SkydnsMessage[]>();
  for (const { key, value } of keys) {
    const owner =
      value.host !== undefined && isIP(value.host) === 0 ? parent(keyToName(key)) : keyToName(key);
    byName.set(owner, [...(byName.get(owner) ?? []), value]);
  }
  for (const relative of env.registry.zone.snapshot().nodes.keys()) {
    const name = relative === '' ? 'agents.internal.' : `${relative}.agents.internal.`;
    const srv = (await tcpQuery(env.dns.port, name, 'SRV')).answers.map(
      (rr) => rr.data as { priority: number; weight: number; port: number; target: string },
    );
    const published = (byName.get(name) ?? []).filter((m) => m.port !== undefined);
    expect(srv.length, name).toBe(published.length);
    const key = (r: { port?: number; target?: string; host?: string }) => `${r.port} ${r.target ?? r.host}`;
    const ours = [...srv].sort((a, b) => key(a).localeCompare(key(b)));
    const theirs = published
      .map((m) => ({ priority: m.priority!, weight: m.weight!, port: m.port!, target: m.host! }))
      .sort((a, b) => key(a).localeCompare(key(b)));
    expect(ours.map(key)).toEqual(theirs.map(key));
    expect(coreDnsWeights(ours)).toEqual(coreDnsWeights(theirs));
    const addresses = [
      ...(await tcpQuery(env.dns.port, name, 'A')).answers,
      ...(await tcpQuery(env.dns.port, name, 'AAAA')).answers,
    ].map((rr) => rr.data);
    const publishedAddresses = (byName.get(name) ?? [])
      .filter((m) => m.host && isIP(m.host))
      .map((m) => m.host);
    // `ns.<zone>` is the responder's own name: CoreDNS synthesises its NS records itself.
    if (relative !== 'ns') expect(addresses, name).toEqual(publishedAddresses);
  }
}
