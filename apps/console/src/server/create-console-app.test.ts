import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../testing/fake-upstream.js';
import { ConsoleMetrics } from './console-metrics.js';
import { createConsoleApp } from './create-console-app.js';

let upstream: FakeUpstream;
const text = (contentType: string, body: string) => ({ contentType, bytes: new TextEncoder().encode(body) });
/** A built UI of two files. */
const ui = Promise.resolve(
  new Map([
    ['/index.html', text('text/html; charset=utf-8', '<!doctype html><title>reach</title>')],
    ['/app.js', text('text/javascript; charset=utf-8', 'export {};')],
  ]),
);
/** Opened by the SSE test's upstream; the test releases it to finish the stream. */
let release: () => void = () => {};

beforeAll(async () => {
  upstream = await FakeUpstream.start(async (req, res) => {
    if (req.url.startsWith('/api/stream/')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const after = Number(req.headers['last-event-id'] ?? 0);
      res.write(`id: ${after + 1}\ndata: {"seq":${after + 1}}\n\n`);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      res.end(`id: ${after + 2}\ndata: {"seq":${after + 2}}\n\nevent: done\ndata: {}\n\n`);
      return;
    }
    if (req.url === '/api/start') {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ trace_id: 'a'.repeat(32), status: 'started' }));
      return;
    }
    if (req.url === '/v1/zone') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('$ORIGIN agents.internal.\n');
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'NOT_FOUND', message: `no route for ${req.method} ${req.url}` }));
  });
});

afterAll(async () => {
  release();
  await upstream.stop();
});

afterEach(() => {
  upstream.seen.length = 0;
});

const app = () =>
  createConsoleApp({
    registryUrl: upstream.url,
    orchestratorUrl: `${upstream.url}/`,
    jaegerUrl: 'http://jaeger.local:16686',
    ui,
    maxBodyBytes: 1024,
  });

describe('console proxy', () => {
  it('forwards /registry/* without the prefix, keeping the query and the encoded path', async () => {
    const res = await app().request('/registry/v1/declarations/summ%61rizer?x=1&y=2');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(upstream.seen[0]).toMatchObject({ method: 'GET', url: '/v1/declarations/summ%61rizer?x=1&y=2' });
  });

  it('passes text bodies and their content type through', async () => {
    const res = await app().request('/registry/v1/zone');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe('$ORIGIN agents.internal.\n');
  });

  it('forwards /api/* with method, body, content type and authorization, and keeps the status', async () => {
    const res = await app().request('/api/start', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer secret-token', cookie: 'x=1' },
      body: JSON.stringify({ text: 'write a plan' }),
    });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ trace_id: 'a'.repeat(32), status: 'started' });
    const seen = upstream.seen[0]!;
    expect(seen).toMatchObject({ method: 'POST', url: '/api/start', body: '{"text":"write a plan"}' });
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers.authorization).toBe('Bearer secret-token');
    // Only API headers travel: the console's own cookies stay behind.
    expect(seen.headers.cookie).toBeUndefined();
  });

  it('streams SSE as it arrives and passes Last-Event-ID', async () => {
    const res = await app().request('/api/stream/abc', { headers: { 'last-event-id': '7' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(upstream.seen[0]!.headers['last-event-id']).toBe('7');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // The first event must arrive while the upstream still holds the stream open.
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('id: 8\ndata: {"seq":8}\n\n');
    release();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    expect(rest).toBe('id: 9\ndata: {"seq":9}\n\nevent: done\ndata: {}\n\n');
  });

  it('answers UNAVAILABLE naming the upstream when it cannot be reached', async () => {
    const dead = createConsoleApp({
      registryUrl: 'http://127.0.0.1:1',
      orchestratorUrl: 'http://127.0.0.1:1',
    });
    const res = await dead.request('/api/traces');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('UNAVAILABLE');
    expect(body.message).toContain('the orchestrator at http://127.0.0.1:1 is unreachable');
  });

  it('counts proxied requests by upstream and outcome on /metrics, with the process defaults when asked', async () => {
    const metrics = new ConsoleMetrics(true);
    const live = createConsoleApp({
      registryUrl: upstream.url,
      orchestratorUrl: 'http://127.0.0.1:1',
      metrics,
    });
    await live.request('/registry/v1/zone');
    await live.request('/registry/v1/nothing');
    await live.request('/api/traces');
    const res = await live.request('/metrics');
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('reach_console_proxy_requests_total{upstream="registry",outcome="2xx"} 1');
    expect(text).toContain('reach_console_proxy_requests_total{upstream="registry",outcome="4xx"} 1');
    expect(text).toContain(
      'reach_console_proxy_requests_total{upstream="orchestrator",outcome="unreachable"} 1',
    );
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('refuses bodies over the limit before calling the upstream', async () => {
    const res = await app().request('/api/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '5000' },
      body: JSON.stringify({ text: 'x'.repeat(4900) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(upstream.seen).toHaveLength(0);
  });
});

describe('console static UI and settings', () => {
  it('serves index.html at / with a strict content security policy', async () => {
    const res = await app().request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('<title>reach</title>');
  });

  it('serves the bundle with a JavaScript type', async () => {
    const res = await app().request('/app.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('serves only the built files', async () => {
    for (const path of [
      '/%2e%2e/%2e%2e/package.json',
      '/..%2fpackage.json',
      '/app/main.tsx',
      '/missing.js',
    ]) {
      const res = await app().request(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('tells the UI where Jaeger is', async () => {
    const res = await app().request('/console/settings');
    expect(await res.json()).toEqual({ jaeger_url: 'http://jaeger.local:16686' });
  });
});
