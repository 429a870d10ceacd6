import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InstanceView } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess, SAMPLE_AGENTS } from '../harness/agent-process.js';
import { CATALOG_MAIN } from '../orchestrator/catalog-agents.js';
import { dig, kdig, requireTool, section, status } from './dns-tools.js';
import { agentBody, type RegistryWithDns, startRegistryWithDns } from './registry-harness.js';

// DNS-AID discovery exactly as its reference client (dns-aid-core: indexer.read_index_via_dns,
// discoverer._query_single_agent, cap_fetcher.fetch_cap_document) does it, with dig and kdig as the
// resolver and nothing of ours on the reading side: the index TXT, then the SVCB of each
// `_{name}._{protocol}._agents` name, then the cap URL fetched and its SHA-256 compared.

/** The reference client's key map (models.py DNS_AID_KEY_MAP), written out here on purpose. */
const REFERENCE_KEYS: Record<string, string> = {
  key65400: 'cap',
  key65401: 'cap-sha256',
  key65402: 'bap',
  key65403: 'policy',
  key65404: 'realm',
  key65405: 'sig',
};

const ZONE = 'agents.internal';
let env: RegistryWithDns;
let port: number;
const agents: AgentProcess[] = [];
let liar: Server;

/** The character-strings of `dig +short TXT` output, unquoted (dig prints each string in quotes). */
function txtStrings(short: string): string[][] {
  return short
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1')));
}

/** indexer.parse_index_txt: `agents=name:proto,…` → entries; anything else → none. */
function parseIndexString(txt: string): Array<{ name: string; protocol: string }> {
  if (!txt.startsWith('agents=')) return [];
  return txt
    .slice('agents='.length)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.includes(':'))
    .map((entry) => {
      const [name, protocol] = entry.split(/:(.*)/s) as [string, string];
      return { name: name.trim(), protocol: protocol.trim().toLowerCase() };
    })
    .filter((e) => e.name !== '' && e.protocol !== '');
}

/** One ServiceMode SVCB as kdig prints it, its DNS-AID keys named the reference client's way. */
interface Svcb {
  priority: number;
  target: string;
  params: Record<string, string>;
}

function readSvcb(fields: string[]): Svcb {
  const [priority, target, ...tokens] = fields.slice(4);
  const params: Record<string, string> = {};
  for (const token of tokens) {
    const [key, value = ''] = token.split(/=(.*)/s) as [string, string?];
    params[REFERENCE_KEYS[key] ?? key] = value.replace(/^"|"$/g, '');
  }
  return { priority: Number(priority), target: target!, params };
}

/** cap_fetcher._verify_cap_digest: base64url SHA-256 of the fetched bytes, without padding. */
function capDigest(bytes: Buffer): string {
  return createHash('sha256')
    .update(bytes)
    .digest('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

interface Found {
  capability: string;
  protocol: string;
  target: string;
  capUrl: string;
  digestMatches: boolean;
  bap: string[];
  svcb: Svcb;
}

/** The whole discovery: index → SVCB per name → fetch cap → compare cap-sha256. */
async function discover(): Promise<{ index: Array<{ name: string; protocol: string }>; found: Found[] }> {
  const short = await dig(port, '+short', `_index._agents.${ZONE}`, 'TXT');
  // read_index_via_dns: the first string that parses to entries is the index.
  let index: Array<{ name: string; protocol: string }> = [];
  for (const strings of txtStrings(short)) {
    for (const s of strings) {
      index = parseIndexString(s);
      if (index.length > 0) break;
    }
    if (index.length > 0) break;
  }
  const found: Found[] = [];
  for (const { name, protocol } of index) {
    const fqdn = `_${name}._${protocol}._agents.${ZONE}`;
    const out = await kdig(port, '+tcp', fqdn, 'SVCB');
    expect(status(out), fqdn).toBe('NOERROR');
    for (const rr of section(out, 'ANSWER').filter((f) => f[3] === 'SVCB')) {
      const svcb = readSvcb(rr);
      if (svcb.priority === 0) continue; // AliasMode: the reference follows it; we publish none
      const capUrl = svcb.params.cap!;
      const res = await fetch(capUrl);
      const body = Buffer.from(await res.arrayBuffer());
      found.push({
        capability: name,
        protocol,
        target: svcb.target,
        capUrl,
        digestMatches: res.ok && capDigest(body) === svcb.params['cap-sha256'],
        bap: (svcb.params.bap ?? '').split(',').filter((b) => b !== ''),
        svcb,
      });
    }
  }
  return { index, found };
}

async function instances(): Promise<InstanceView[]> {
  const res = await fetch(`${env.registry.url}/v1/agents`);
  return ((await res.json()) as { instances: InstanceView[] }).instances;
}

beforeAll(async () => {
  requireTool('dig');
  requireTool('kdig');
  env = await startRegistryWithDns();
  port = env.dns.port;
  agents.push(
    AgentProcess.spawn({ script: SAMPLE_AGENTS['summarizer-v2'], registryUrl: env.registry.url }),
    AgentProcess.spawn({ script: SAMPLE_AGENTS.translator, registryUrl: env.registry.url }),
    AgentProcess.spawn({
      script: CATALOG_MAIN,
      registryUrl: env.registry.url,
      env: { CATALOG_AGENT: 'planning' },
    }),
  );
  await Promise.all(agents.map((a) => a.registered()));
  // An agent whose DNS digest does not match the card it serves: discovery must notice.
  liar = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"name":"liar","skills":[]}');
  });
  await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
  await env.register(
    agentBody({ name: 'liar', port: (liar.address() as AddressInfo).port, capabilities: ['forgery'] }),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.term().catch(() => undefined)));
  await new Promise((resolve) => liar?.close(resolve));
  await env?.stop();
});

describe('DNS-AID discovery the way the reference client does it, with dig and kdig', () => {
  it('finds every capability, over a2a, each SVCB carrying mandatory/alpn/port/ipv4hint, cap, cap-sha256 and bap', async () => {
    const { index, found } = await discover();
    const live = await instances();
    const published = new Set(live.flatMap((view) => view.capabilities));
    expect(published.size).toBeGreaterThanOrEqual(4);
    // The index lists every capability that exists now, each once, all as a2a.
    expect(index.map((e) => e.name).sort()).toEqual([...published].sort());
    expect(new Set(index.map((e) => e.protocol))).toEqual(new Set(['a2a']));
    // Every live instance is found under every capability it publishes.
    for (const view of live) {
      for (const capability of view.capabilities) {
        const hit = found.find(
          (f) => f.capability === capability && f.target === `${view.instance_id}.${ZONE}.`,
        );
        expect(hit, `${view.instance_id} under ${capability}`).toBeDefined();
        expect(hit!.svcb.params.mandatory).toBe('alpn,port');
        expect(hit!.svcb.params.port).toBe(String(view.endpoint.port));
        expect(hit!.svcb.params.ipv4hint).toBe(view.endpoint.host);
        expect(hit!.svcb.params.alpn).toBeDefined();
        expect(hit!.capUrl).toBe(
          `http://${view.endpoint.host}:${view.endpoint.port}/.well-known/agent-card.json`,
        );
        expect(hit!.bap).toEqual(['a2a/1']);
      }
    }
    expect(found.length).toBe(live.reduce((n, view) => n + view.capabilities.length, 0));
  });

  it('the cap-sha256 of every SDK agent matches the exact card bytes it serves; the liar’s does not', async () => {
    const { found } = await discover();
    const honest = found.filter((f) => f.capability !== 'forgery');
    expect(honest.length).toBeGreaterThanOrEqual(3);
    for (const f of honest) expect(f.digestMatches, `${f.capability} at ${f.capUrl}`).toBe(true);
    const lie = found.filter((f) => f.capability === 'forgery');
    expect(lie).toHaveLength(1);
    expect(lie[0]!.digestMatches).toBe(false);
  });

  it('answers the capabilities= TXT fallback at each name, and the flat name’s SVCB resolves to the instance', async () => {
    const { found } = await discover();
    for (const f of found) {
      const txt = txtStrings(
        await dig(port, '+short', `_${f.capability}._a2a._agents.${ZONE}`, 'TXT'),
      ).flat();
      // discoverer._query_capabilities: strings starting with capabilities= are the fallback list.
      const caps = txt
        .filter((s) => s.startsWith('capabilities='))
        .flatMap((s) => s.slice('capabilities='.length).split(','));
      expect(caps, f.capability).toContain(f.capability);
      const flat = section(await kdig(port, f.target, 'SVCB'), 'ANSWER');
      expect(flat).toHaveLength(1);
      const own = readSvcb(flat[0]!);
      expect(own.target).toBe('.');
      expect(own.params.cap).toBe(f.capUrl);
      expect(own.params['cap-sha256']).toBe(f.svcb.params['cap-sha256']);
      expect((await dig(port, '+short', f.target, 'A')).trim()).toBe(f.svcb.params.ipv4hint);
    }
  });
});
