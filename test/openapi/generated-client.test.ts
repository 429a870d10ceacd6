import { readFile } from 'node:fs/promises';
import {
  DeletedWire,
  DiscoveryWire,
  RunSummaryWire,
  StartedWire,
  TraceDetailWire,
  TracePageWire,
} from '@agent-reach/orchestrator';
import { InstanceView, RouteResponse, RoutingStats } from '@agent-reach/sdk/protocol';
import { Validator } from '@seriousme/openapi-schema-validator';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConsoleStack } from '../console/console-stack.js';
import { FILES, typesOf } from './generate-types.js';
import type { paths as OrchestratorPaths } from './orchestrator-api.js';
import type { paths as RegistryPaths } from './registry-api.js';

// Both APIs through clients generated from their own /openapi.json (openapi-typescript types,
// openapi-fetch calls), against the real processes; answers are parsed with the wire schemas.

let stack: ConsoleStack;

beforeAll(async () => {
  stack = await ConsoleStack.start({ agentDelayMs: 0 });
}, 300_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

describe('the OpenAPI documents', () => {
  it('pass the OpenAPI 3.1 schema validator and match the committed generated types', async () => {
    for (const [name, url] of [
      ['registry', stack.registryUrl],
      ['orchestrator', stack.orchestratorUrl],
    ] as const) {
      const doc = (await (await fetch(`${url}/openapi.json`)).json()) as Parameters<Validator['validate']>[0];
      const result = await new Validator().validate(doc);
      expect(result.errors ?? [], name).toEqual([]);
      expect(result.valid, name).toBe(true);
      // Out of date: run test/openapi/generate-types.ts against a running system and commit the result.
      expect(await typesOf(url), `${name} types`).toBe(await readFile(FILES[name], 'utf8'));
    }
  });
});

describe('a generated client', () => {
  it('calls the registry: list agents, route, statistics', async () => {
    const registry = createClient<RegistryPaths>({ baseUrl: stack.registryUrl });
    const agents = await registry.GET('/v1/agents', { params: { query: { state: 'healthy' } } });
    expect(agents.response.status).toBe(200);
    const instances = z.array(InstanceView).parse(agents.data?.instances);
    expect(instances.map((i) => i.agent_name)).toContain('writer-agent');

    const route = await registry.POST('/v1/route', { body: { operation: 'writing' } });
    expect(route.response.status).toBe(200);
    expect(RouteResponse.parse(route.data).candidates[0]?.agent_name).toBe('writer-agent');

    const bad = await registry.POST('/v1/route', { body: { operation: '' } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.code).toBe('VALIDATION_FAILED');

    const stats = await registry.GET('/v1/routing/stats');
    RoutingStats.parse(stats.data);
  });

  it('calls the orchestrator: start a run, find it by id, read it, discovery', async () => {
    const orchestrator = createClient<OrchestratorPaths>({ baseUrl: stack.orchestratorUrl });
    const started = await orchestrator.POST('/api/start', { body: { text: 'write a two-line launch note' } });
    expect(started.response.status).toBe(202);
    const { trace_id } = StartedWire.parse(started.data);

    const found = await orchestrator.GET('/api/traces', { params: { query: { q: trace_id } } });
    expect(TracePageWire.parse(found.data).items.map((t) => t.id)).toEqual([trace_id]);

    let detail = TraceDetailWire.strict().parse(
      (await orchestrator.GET('/api/traces/{id}', { params: { path: { id: trace_id } } })).data,
    );
    const deadline = performance.now() + 90_000;
    while (detail.trace.status === 'running' && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const again = await orchestrator.GET('/api/traces/{id}', { params: { path: { id: trace_id } } });
      detail = TraceDetailWire.strict().parse(again.data);
    }
    expect(detail.trace.status).toBe('ok');
    expect(detail.nodes.length).toBeGreaterThan(0);

    const missing = await orchestrator.GET('/api/traces/{id}', {
      params: { path: { id: `${'0'.repeat(31)}1` } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.code).toBe('NOT_FOUND');

    DiscoveryWire.parse((await orchestrator.GET('/api/discovery')).data);

    const ran = await orchestrator.POST('/api/run', { body: { text: 'list three risks of a picnic' } });
    expect(RunSummaryWire.strict().parse(ran.data).status).toBe('ok');
    const deleted = await orchestrator.DELETE('/api/traces/{id}', { params: { path: { id: trace_id } } });
    expect(DeletedWire.parse(deleted.data)).toEqual({ trace_id, deleted: true });
  }, 120_000);
});
