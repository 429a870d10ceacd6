import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

let t: TestRegistry;
afterEach(async () => {
  await t.cleanup();
});

/** hono's `/v1/agents/:id` as OpenAPI's `/v1/agents/{id}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document listing every route the app serves, with its error codes', async () => {
    t = await startTestRegistry();
    const res = await t.registry.app.request('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Document;
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    const served = t.registry.app.routes
      .filter((r) => r.method !== 'ALL' && !['/openapi.json', '/docs', '/docs/:file'].includes(r.path))
      .map((r) => `${r.method} ${openApiPath(r.path)}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(new Set(documented)).toEqual(new Set(served));
    // Errors are listed by code under their status.
    const register = doc.paths['/v1/agents']!.post!.responses;
    expect(register['201']).toBeDefined();
    expect(register['400']!.description).toContain('VALIDATION_FAILED');
    expect(register['413']!.description).toBe('PAYLOAD_TOO_LARGE');
    expect(register['500']!.description).toBe('INTERNAL');
    expect(doc.paths['/v1/agents/{id}/heartbeat']!.post!.responses['409']!.description).toContain(
      'STALE_HEARTBEAT',
    );
  });

  it('serves a browsable reference at /docs from local files (no CDN)', async () => {
    t = await startTestRegistry();
    const page = await t.registry.app.request('/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>Agent Reach registry API</title>');
    const scripts = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.every((s) => s.startsWith('/docs/'))).toBe(true);
    for (const asset of scripts) {
      const res = await t.registry.app.request(asset);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength, asset).toBeGreaterThan(10);
    }
    expect((await t.registry.app.request('/docs/package.json')).status).toBe(404);
  });
});
