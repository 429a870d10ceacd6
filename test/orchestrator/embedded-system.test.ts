import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/registry-process.js';
import { CATALOG_AGENT_KEYS } from './catalog-agents.js';
import { OrchestratorProcess } from './orchestrator-process.js';
import { createScratchDatabase } from './postgres-db.js';
import { OrchestratorApi, type System, startSystem } from './system.js';

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.test.ts') &&
      !entry.name.startsWith('fake-')
    )
      out.push(path);
  }
  return out;
}

let system: System;
let postgres: { orchestrator: OrchestratorProcess; drop: () => Promise<void> } | undefined;
const stores: Array<{ name: string; api: () => OrchestratorApi }> = [
  { name: 'PGlite', api: () => system.api },
  { name: 'Postgres', api: () => new OrchestratorApi(postgres!.orchestrator.url) },
];

beforeAll(async () => {
  system = await startSystem({ agents: CATALOG_AGENT_KEYS.map((key) => ({ key })) });
  // A second orchestrator on Postgres over the same registry and agents: the same tests run on both stores.
  const db = await createScratchDatabase();
  const orchestrator = await OrchestratorProcess.start({
    dnsPort: system.registry.dnsPort,
    databaseUrl: db.url,
  });
  postgres = { orchestrator, drop: db.drop };
}, 300_000);

afterAll(async () => {
  await postgres?.orchestrator.stop();
  await postgres?.drop();
  await system?.stop();
}, 120_000);

describe('V1: capabilities are found through DNS, with no endpoint in the code', () => {
  it('discovers all seven capabilities from SVCB at the agents DNS lists', async () => {
    const view = await system.api.discovery();
    const endpoints = new Set(system.agents.map((a) => a.endpoint));
    for (const cap of DEFAULT_CATALOG) {
      const c = view.capabilities[cap]!;
      expect(c, cap).toMatchObject({ source: 'svcb', available: true, reason: null, failed: [] });
      expect(
        c.candidates.map((x) => x.endpoint).every((e) => endpoints.has(e)),
        cap,
      ).toBe(true);
      expect(c.candidates.length, cap).toBe(1);
    }
    // One SVCB question per capability; the verifier's card serves its two capabilities.
    // One question per capability, plus the DNS index that lists every live capability.
    expect(view.stats.dns_queries).toBe(DEFAULT_CATALOG.length + 1);
    expect(view.stats.card_failures).toBe(0);
  });

  it('holds no agent address in the orchestrator source', async () => {
    const files = await sourceFiles(join(REPO_ROOT, 'apps/orchestrator/src'));
    expect(files.length).toBeGreaterThan(20);
    const endpoint =
      /\b(?:\d{1,3}\.){3}\d{1,3}:\d{2,5}\b|localhost:\d+|\b[a-z0-9-]+-agent(?:\.[a-z0-9-]+)*:\d+/;
    for (const file of files) expect(endpoint.test(await readFile(file, 'utf8')), file).toBe(false);
  });
});

describe.each(stores)('on $name', ({ api }) => {
  it('V5: a finished trace holds the plan, the nodes, every event and each node input context', async () => {
    const traceId = await api().start(
      '设计一个家庭局域网安全智能体发现系统，分析风险、查找证据并给出实现和验收方案',
    );
    const live = await api().events(traceId);
    const detail = await api().trace(traceId);
    expect(detail.trace.status).toBe('ok');
    expect(detail.events.map((e) => e.seq)).toEqual(live.map((e) => e.seq));
    expect(detail.events.map((e) => e.seq)).toEqual(detail.events.map((_, i) => i + 1));
    expect(detail.trace.last_seq).toBe(detail.events.length);
    const types = new Set(detail.events.map((e) => e.type));
    for (const t of [
      'trace_started',
      'discovery_finished',
      'plan_ready',
      'agents_bound',
      'layer_started',
      'context_compacted',
      'node_input',
      'node_succeeded',
      'node_output',
      'layer_finished',
      'trace_finished',
    ]) {
      expect(types.has(t), t).toBe(true);
    }
    // Which DNS names were asked and who was considered.
    const discovered = detail.events.find((e) => e.type === 'discovery_finished')!.data as {
      view: { capabilities: Record<string, { queries: string[]; candidates: unknown[] }> };
    };
    expect(discovered.view.capabilities.writing!.queries).toEqual([
      '_writing._a2a._agents.agents.internal SVCB',
    ]);
    expect(detail.plan!.normalized.nodes.map((n) => n.id).sort()).toEqual(
      detail.nodes.map((n) => n.node_id).sort(),
    );
    for (const node of detail.nodes) {
      const input = detail.events.find((e) => e.type === 'node_input' && e.data.node_id === node.node_id);
      const output = detail.events.find((e) => e.type === 'node_output' && e.data.node_id === node.node_id);
      expect(node.status, node.node_id).toBe('succeeded');
      expect(node.input_context, node.node_id).toBe(input?.data.context);
      expect(node.output, node.node_id).toBe(output?.data.output);
      expect(node.binding, node.node_id).toMatchObject({
        selection: { strategy: 'priority_then_weighted_random' },
      });
      const plan = detail.plan!.normalized.nodes.find((n) => n.id === node.node_id)!;
      for (const dep of plan.depends_on)
        expect(node.input_context, `${node.node_id} gets ${dep}`).toContain(`### ${dep} ·`);
    }
    expect(detail.trace.summary).toContain('最终答复');
  });

  it('V6: similar wording goes to different capabilities', async () => {
    const api1 = await api().run('设计一个用户下线接口');
    const api2 = await api().run('设计一份生日派对策划');
    const caps = async (id: string) => (await api().trace(id)).nodes.map((n) => n.capability);
    expect(await caps(api1.trace_id)).toContain('implementation');
    expect(await caps(api2.trace_id)).toContain('writing');
    expect(await caps(api2.trace_id)).not.toContain('implementation');
  });

  it('replays the stream after a reconnect without losing an event', async () => {
    const traceId = await api().start(
      'Plan a product launch, research the market and write the announcement',
    );
    const first = await api().stream(traceId, { stop: (_m, all) => all.length >= 4 });
    const lastSeen = Number(first.at(-1)!.id);
    const rest = await api().stream(traceId, { after: lastSeen });
    expect(rest.at(-1)!.event).toBe('done');
    const seqs = [...first, ...rest].filter((m) => m.event === 'message').map((m) => Number(m.id));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const stored = (await api().trace(traceId)).events.map((e) => e.seq);
    expect(seqs).toEqual(stored);
  });

  it('answers bad input to every endpoint with a 4xx and a code', async () => {
    const url = api().url;
    const cases: Array<[string, string, string | undefined, number, string]> = [
      ['POST', '/api/start', 'nope', 400, 'INVALID_JSON'],
      ['POST', '/api/start', '{"text":""}', 400, 'VALIDATION_FAILED'],
      ['POST', '/api/run', '{"task":1}', 400, 'VALIDATION_FAILED'],
      ['GET', '/api/stream/xyz', undefined, 400, 'VALIDATION_FAILED'],
      ['GET', `/api/stream/${'f'.repeat(32)}`, undefined, 404, 'NOT_FOUND'],
      ['GET', '/api/traces?limit=abc', undefined, 400, 'VALIDATION_FAILED'],
      ['GET', '/api/traces/xyz', undefined, 400, 'VALIDATION_FAILED'],
      ['DELETE', `/api/traces/${'f'.repeat(32)}`, undefined, 404, 'NOT_FOUND'],
      ['GET', '/api/discovery/extra', undefined, 404, 'NOT_FOUND'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await fetch(`${url}${path}`, {
        method,
        ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
      });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(((await res.json()) as { code: string }).code, `${method} ${path}`).toBe(code);
    }
  });
});
