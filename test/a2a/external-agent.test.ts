import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReachClient } from '@agent-reach/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, LineCollector, pollUntil, trackChild } from '../harness/child-output.js';
import { run } from '../harness/debian-tools.js';
import { freePort } from '../harness/ports.js';
import { REPO_ROOT, RegistryProcess } from '../harness/registry-process.js';
import { type CatalogAgent, startCatalogAgents } from '../orchestrator/catalog-agents.js';
import { OrchestratorProcess } from '../orchestrator/orchestrator-process.js';
import { OrchestratorApi } from '../orchestrator/system.js';

// Anyone's A2A agent joins by card URL: an agent built only with @a2a-js/sdk's server and express
// (test/a2a/outside-agent.ts, no code of ours) is registered, published, routed to, called by
// ReachClient and by the orchestrator in a run, dropped when its card changes, evicted when killed.

const INTERVAL_MS = 1000;
const TIMEOUT_MS = 3000;
const TOKEN = 'a2a-external-token-0001';
const ZONE = 'agents.internal';

interface Outside {
  child: ChildProcess;
  url: string;
  cardUrl: string;
}

async function startOutside(): Promise<Outside> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'test/a2a/outside-agent.ts')], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  const out = new LineCollector();
  const err = new LineCollector();
  out.attach(child.stdout!);
  err.attach(child.stderr!);
  const ready = await pollUntil(
    () => {
      const line = out.lines.find((l) => l.startsWith('{"ready"'));
      if (line) return (JSON.parse(line) as { ready: { url: string; card_url: string } }).ready;
      if (child.exitCode !== null) throw new Error(`outside agent exited: ${err.lines.join('\n')}`);
      return undefined;
    },
    60_000,
    () => `outside agent not ready: ${err.lines.join('\n')}`,
  );
  return { child, url: ready.url, cardUrl: ready.card_url };
}

async function kill(outside: Outside): Promise<void> {
  if (outside.child.exitCode !== null) return;
  const exited = exitOf(outside.child);
  outside.child.kill('SIGKILL');
  await exited;
}

let dir: string;
let registry: RegistryProcess;
let agents: CatalogAgent[] = [];
let orchestrator: OrchestratorProcess;
let badCards: http.Server;
let badBase: string;
const outsiders: Outside[] = [];

const api = {
  register: (body: unknown, token: string | null = TOKEN) =>
    fetch(`${registry.url}/v1/agents/external`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }),
  instances: async () =>
    (
      (await (await fetch(`${registry.url}/v1/agents`)).json()) as {
        instances: Array<{ instance_id: string; agent_name: string; state: string; external?: boolean }>;
      }
    ).instances,
  zone: async () => (await fetch(`${registry.url}/v1/zone`)).text(),
};

/** Serves the bad cards: not JSON, 10 MB, no usable skill, no A2A 1.x binding. */
async function startBadCards(): Promise<http.Server> {
  const card = (skills: unknown[], interfaces?: unknown[]) => ({
    name: 'Bad Card',
    description: 'a card the registry must refuse',
    supportedInterfaces: interfaces ?? [
      { url: `${badBase}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    version: '1',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills,
  });
  const server = http.createServer((req, res) => {
    if (req.url === '/not-json')
      return res.writeHead(200, { 'content-type': 'application/json' }).end('hello, not json');
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const write = () => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', write);
        }
        res.end();
      };
      res.on('error', () => undefined);
      return write();
    }
    if (req.url === '/no-skill')
      return res
        .writeHead(200)
        .end(JSON.stringify(card([{ id: '???', name: 'x', description: 'x', tags: [] }])));
    if (req.url === '/grpc-only')
      return res
        .writeHead(200)
        .end(
          JSON.stringify(
            card(
              [{ id: 'echo', name: 'e', description: 'e', tags: [] }],
              [{ url: `${badBase}/grpc`, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
            ),
          ),
        );
    if (req.url === '/v03-card')
      return res
        .writeHead(200)
        .end(JSON.stringify({ name: 'Old', url: `${badBase}/x`, protocolVersion: '0.3.0', skills: [] }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  badBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return server;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-external-'));
  registry = await RegistryProcess.start({
    config: {
      storage: { type: 'embedded', path: join(dir, 'registry') },
      control_plane: {
        heartbeat_interval: `${INTERVAL_MS}ms`,
        heartbeat_timeout: `${TIMEOUT_MS}ms`,
        tokens: [{ name: 'a2a', token: TOKEN, capabilities: ['*'] }],
      },
    },
  });
  badCards = await startBadCards();
  // Every catalog capability but writing: the outside agent is the only writer.
  const keys = ['planning', 'research', 'security_review', 'implementation', 'synthesis'];
  agents = await startCatalogAgents(
    registry.url,
    keys.map((key) => ({ key })),
    { REACH_REGISTRY_TOKEN: TOKEN },
  );
  orchestrator = await OrchestratorProcess.start({ dnsPort: registry.dnsPort });
});

afterAll(async () => {
  for (const o of outsiders) await kill(o).catch(() => undefined);
  await orchestrator?.stop();
  await Promise.all(agents.map((a) => a.process.term().catch(() => undefined)));
  await registry?.dispose();
  await new Promise((resolve) => badCards?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('POST /v1/agents/external', () => {
  it('refuses bad cards with a 4xx and a code, and stores nothing', async () => {
    const ids = async () => (await api.instances()).map((i) => i.instance_id).sort();
    const before = await ids();
    const cases: Array<[unknown, number, string]> = [
      [
        { card_url: `http://127.0.0.1:${await freePort()}/.well-known/agent-card.json` },
        422,
        'CARD_UNREACHABLE',
      ],
      [{ card_url: `${badBase}/missing` }, 422, 'CARD_UNREACHABLE'],
      [{ card_url: `${badBase}/not-json` }, 422, 'CARD_INVALID'],
      [{ card_url: `${badBase}/huge` }, 422, 'CARD_TOO_LARGE'],
      [{ card_url: `${badBase}/no-skill` }, 422, 'NO_USABLE_SKILL'],
      [{ card_url: `${badBase}/grpc-only` }, 422, 'CARD_INVALID'],
      [{ card_url: `${badBase}/v03-card` }, 422, 'CARD_INVALID'],
      [{ card_url: 'ftp://example.org/card.json' }, 400, 'VALIDATION_FAILED'],
      [{ card_url: `${badBase}/no-skill`, capabilities: { nope: 'writing' } }, 422, 'NO_USABLE_SKILL'],
      [{}, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await api.register(body);
      const answer = (await res.json()) as { code: string; message: string };
      expect([res.status, answer.code], `${JSON.stringify(body)}: ${answer.message}`).toEqual([status, code]);
    }
    const unauthorised = await api.register({ card_url: `${badBase}/not-json` }, null);
    expect(unauthorised.status).toBe(401);
    expect(await ids()).toEqual(before);
    expect(await api.zone()).not.toMatch(/bad-card|upper-echo/);
    const history = await fetch(`${registry.url}/v1/declarations/bad-card`);
    expect(((await history.json()) as { history?: unknown[] }).history ?? []).toEqual([]);
  });

  it('registers an @a2a-js/sdk agent: DNS, routing, ReachClient and an orchestrator run reach it; killed, it is evicted', async () => {
    const outside = await startOutside();
    outsiders.push(outside);
    const res = await api.register({ card_url: outside.cardUrl, capabilities: { 'upper-echo': 'writing' } });
    const body = (await res.json()) as {
      instance_id: string;
      agent_name: string;
      capabilities: Record<string, string>;
      a2a: { url: string; binding: string };
      card_sha256: string;
    };
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({
      agent_name: 'upper-echo',
      capabilities: { 'upper-echo': 'writing' },
      a2a: { url: `${outside.url}/a2a/jsonrpc`, binding: 'JSONRPC' },
    });
    const id = body.instance_id;

    // In DNS: the instance's address through dig, and SVCB records naming it with its card URL.
    const address = await run('dig', [
      '+short',
      '-p',
      String(registry.dnsPort),
      '@127.0.0.1',
      `${id}.${ZONE}`,
      'A',
    ]);
    expect(address.trim()).toBe('127.0.0.1');
    const zone = await api.zone();
    const svcb = zone.split('\n').filter((l) => /\sSVCB\s/.test(l) && l.includes(`${id}.${ZONE}`));
    expect(svcb.length).toBeGreaterThanOrEqual(2);
    expect(svcb.join('\n')).toContain(outside.cardUrl);
    expect(svcb.join('\n')).toContain(body.card_sha256);

    // Routed to, with the A2A interface to call.
    const route = (await (
      await fetch(`${registry.url}/v1/route`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ operation: 'writing' }),
      })
    ).json()) as { candidates: Array<{ instance_id: string; a2a?: { url: string } }> };
    expect(route.candidates.map((c) => c.instance_id)).toEqual([id]);
    expect(route.candidates[0]?.a2a?.url).toBe(`${outside.url}/a2a/jsonrpc`);

    // ReachClient calls it exactly like ours.
    const client = new ReachClient({ registryUrl: registry.url, outcomes: false });
    const reached = await client.reach({ need: { operation: 'writing' }, input: 'hello from reach' });
    await client.close();
    expect(reached.ok && reached.value.output).toBe('HELLO FROM REACH');

    // The orchestrator finds it through DNS and calls it in a run.
    const api2 = new OrchestratorApi(orchestrator.url);
    const ran = await api2.run('Write a short proposal for moving our agents to A2A');
    const trace = await api2.trace(ran.trace_id);
    const writing = trace.nodes.filter((n) => n.capability === 'writing');
    expect(writing.length, JSON.stringify(trace.nodes)).toBeGreaterThan(0);
    for (const node of writing) {
      expect(node.status, JSON.stringify(node)).toBe('succeeded');
      expect(node.agent).toBe('Upper Echo');
      expect(node.endpoint).toBe(new URL(outside.url).host);
    }

    // Killed: probes fail, heartbeats are missed, the lease runs out — the usual bound.
    const killedAt = performance.now();
    await kill(outside);
    const gone = await pollUntil(
      async () =>
        (await api.instances()).some((i) => i.instance_id === id) ? undefined : performance.now() - killedAt,
      TIMEOUT_MS + 4 * INTERVAL_MS,
      () => `${id} still listed`,
      100,
    );
    expect(gone).toBeLessThanOrEqual(TIMEOUT_MS + 2 * INTERVAL_MS);
    expect(await api.zone()).not.toContain(id);
  });

  it('drops an agent from DNS when its card digest changes (it lies)', async () => {
    const outside = await startOutside();
    outsiders.push(outside);
    const res = await api.register({ card_url: outside.cardUrl, capabilities: { 'upper-echo': 'writing' } });
    const { instance_id: id } = (await res.json()) as { instance_id: string };
    expect(res.status).toBe(201);
    expect(await api.zone()).toContain(id);
    // Still there after a few probes of an unchanged card.
    await new Promise((resolve) => setTimeout(resolve, 3 * INTERVAL_MS));
    expect((await api.instances()).find((i) => i.instance_id === id)).toMatchObject({
      state: 'healthy',
      external: true,
    });
    const changedAt = performance.now();
    await fetch(`${outside.url}/test/lie`, { method: 'POST' });
    const dropped = await pollUntil(
      async () => ((await api.zone()).includes(id) ? undefined : performance.now() - changedAt),
      3 * INTERVAL_MS,
      () => `${id} still in the zone after its card changed`,
      50,
    );
    expect(dropped).toBeLessThanOrEqual(2 * INTERVAL_MS + 500);
    expect((await api.instances()).some((i) => i.instance_id === id)).toBe(false);
  });
});
