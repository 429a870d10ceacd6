import { ReachError } from '@agent-reach/sdk/protocol';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { OrchestratorMetrics } from './metrics.js';

const unused = async (): Promise<never> => {
  throw new ReachError('INTERNAL', 'not called by this test');
};
const app = createApp({
  orchestrator: { start: unused, run: unused, discover: unused, cancel: unused },
  store: { listTraces: unused, getTrace: unused, deleteTrace: unused, subscribe: unused },
  metrics: new OrchestratorMetrics(),
  apiToken: null,
});

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document listing every route the app serves, with its error codes', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as Document;
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    const served = app.routes
      .filter((r) => r.method !== 'ALL' && !['/openapi.json', '/docs', '/docs/:file'].includes(r.path))
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(new Set(documented)).toEqual(new Set(served));
    expect(doc.paths['/api/start']!.post!.responses['401']!.description).toBe('UNAUTHORIZED');
    expect(doc.paths['/api/traces/{id}']!.get!.responses['404']!.description).toBe('NOT_FOUND');
  });

  it('serves the reference page at /docs with its assets', async () => {
    const html = await (await app.request('/docs')).text();
    expect(html).toContain('<title>Agent Reach orchestrator API</title>');
    expect((await app.request('/docs/swagger-ui-bundle.js')).status).toBe(200);
  });
});
