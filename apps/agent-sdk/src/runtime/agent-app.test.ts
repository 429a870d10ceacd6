import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../clock/index.js';
import { AgentCard, Declaration, InvokeLine, ReachError } from '../protocol/index.js';
import { createAgentApp } from './agent-app.js';
import { cardDocument } from './card-document.js';
import type { InvokeContext, InvokeHandler, InvokeHook, InvokeInfo } from './invoke-context.js';
import { InvokeService } from './invoke-service.js';
import { LoadGauge } from './load-gauge.js';
import { silentLogger } from './logger.js';

const declaration = Declaration.parse({
  agent_name: 'summarizer-v2',
  domain: 'text_processing',
  capabilities: {
    summarize: { input: ['text', 'max_length'], output: ['summary'], serves: ['writing'] },
    translate: { input: ['text'], output: ['translation'] },
  },
  priority: 80,
  idempotent: true,
});

function makeApp(handler: InvokeHandler, capacity = 4, hook?: InvokeHook) {
  const gauge = new LoadGauge(capacity);
  const service = new InvokeService({
    declaration,
    handler,
    gauge,
    clock: systemClock,
    logger: silentLogger,
    ledger: { maxEntries: 100, ttlMs: 60_000 },
    defaultTimeoutMs: 5000,
    hook,
  });
  const card = cardDocument(declaration, {
    host: '127.0.0.1',
    port: 4100,
    scheme: 'http',
    alpn: ['http/1.1'],
  });
  const app = createAgentApp({
    service,
    health: () => ({ status: 'ok', in_flight: gauge.inFlight, capacity: gauge.capacity, instance_id: 'i-1' }),
    card: () => card,
    instanceId: () => 'i-1',
    maxBodyBytes: 2048,
    logger: silentLogger,
  });
  return { app, card, gauge };
}

const invoke = (
  app: ReturnType<typeof makeApp>['app'],
  body: unknown,
  headers: Record<string, string> = {},
) =>
  app.request('/v1/invoke', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function lines(response: Response): Promise<InvokeLine[]> {
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => InvokeLine.parse(JSON.parse(line)));
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('agent card', () => {
  it('serves stable bytes whose sha256 is the strong ETag, and 304 on If-None-Match', async () => {
    const { app, card } = makeApp(() => null);
    const first = await app.request('/.well-known/agent-card.json');
    const bytes = Buffer.from(await first.arrayBuffer());
    const digest = createHash('sha256').update(bytes).digest('base64url');
    expect(first.status).toBe(200);
    expect(first.headers.get('etag')).toBe(`"${digest}"`);
    expect(card.sha256).toBe(digest);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    expect(AgentCard.parse(JSON.parse(bytes.toString())).name).toBe('summarizer-v2');
    const again = Buffer.from(await (await app.request('/.well-known/agent-card.json')).arrayBuffer());
    expect(again.equals(bytes)).toBe(true);

    const cached = await app.request('/.well-known/agent-card.json', {
      headers: { 'if-none-match': `"x", W/"${digest}"` },
    });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(`"${digest}"`);
    expect(await cached.text()).toBe('');
    const stale = await app.request('/.well-known/agent-card.json', {
      headers: { 'if-none-match': '"other"' },
    });
    expect(stale.status).toBe(200);
  });
});

describe('POST /v1/invoke', () => {
  it('answers NDJSON: ack, progress, then the result', async () => {
    const { app } = makeApp((ctx) => {
      ctx.progress('halfway', 0.5);
      return { summary: `${ctx.capability}:${(ctx.input as { text: string }).text}` };
    });
    const response = await invoke(app, { request_id: 'r-1', capability: 'summarize', input: { text: 'hi' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    const got = await lines(response);
    expect(got.map((l) => l.type)).toEqual(['ack', 'progress', 'result']);
    expect(got[0]).toEqual({ type: 'ack', request_id: 'r-1', instance_id: 'i-1' });
    expect(got[1]).toMatchObject({ message: 'halfway', fraction: 0.5 });
    expect(got[2]).toMatchObject({ type: 'result', request_id: 'r-1', output: { summary: 'summarize:hi' } });
  });

  it('sends the ack before the handler finishes', async () => {
    const release = deferred();
    const { app } = makeApp(async () => {
      await release.promise;
      return 'done';
    });
    const response = await invoke(app, { request_id: 'r-ack', capability: 'summarize', input: {} });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(first)).toMatchObject({ type: 'ack', request_id: 'r-ack' });
    release.resolve();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(JSON.parse(rest.trim())).toMatchObject({ type: 'result', output: 'done' });
  });

  it('maps a catalog capability to the operation serving it, and refuses unknown or ambiguous ones', async () => {
    const { app } = makeApp((ctx) => ctx.capability);
    const served = await lines(await invoke(app, { request_id: 'r-w', capability: 'writing', input: null }));
    expect(served[1]).toMatchObject({ type: 'result', output: 'summarize' });
    const unknown = await invoke(app, { request_id: 'r-u', capability: 'planning', input: null });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ code: 'UNKNOWN_CAPABILITY' });
    const ambiguous = await invoke(app, { request_id: 'r-a', input: null });
    expect(ambiguous.status).toBe(400);
    expect(await ambiguous.json()).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('answers bad input with a 4xx and a code, before any ack', async () => {
    const { app } = makeApp(() => null);
    const broken = await invoke(app, '{"request_id":');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ code: 'INVALID_JSON' });
    const wrong = await invoke(app, { request_id: 'has space', input: 1, deadline_ms: -1 });
    expect(wrong.status).toBe(400);
    const body = (await wrong.json()) as { code: string; message: string };
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.message).toContain('request_id');
    expect(body.message).toContain('deadline_ms');
    const huge = await invoke(app, { request_id: 'r-big', capability: 'summarize', input: 'x'.repeat(5000) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('turns handler failures into error lines; unknown errors are not leaked', async () => {
    const { app } = makeApp((ctx) => {
      if ((ctx.input as { kind: string }).kind === 'reach')
        throw new ReachError('VALIDATION_FAILED', 'input.text: required');
      throw new Error('secret internals at /srv/db');
    });
    const known = await lines(
      await invoke(app, { request_id: 'e-1', capability: 'summarize', input: { kind: 'reach' } }),
    );
    expect(known[1]).toEqual({
      type: 'error',
      request_id: 'e-1',
      code: 'VALIDATION_FAILED',
      message: 'input.text: required',
      retryable: false,
    });
    const unknown = await lines(
      await invoke(app, { request_id: 'e-2', capability: 'summarize', input: { kind: 'x' } }),
    );
    expect(unknown[1]).toMatchObject({ type: 'error', code: 'INTERNAL' });
    expect(JSON.stringify(unknown[1])).not.toContain('secret');
  });

  it('returns the first answer for a repeated request_id, also while the first still runs', async () => {
    const release = deferred();
    let calls = 0;
    const { app } = makeApp(async (ctx) => {
      calls += 1;
      await release.promise;
      return { call: calls, input: ctx.input };
    });
    const first = invoke(app, { request_id: 'dup', capability: 'summarize', input: 'one' });
    const firstResponse = await first;
    const second = invoke(app, { request_id: 'dup', capability: 'summarize', input: 'two' });
    const secondResponse = await second;
    release.resolve();
    const [a, b] = await Promise.all([lines(firstResponse), lines(secondResponse)]);
    expect(b[0]).toMatchObject({ type: 'ack', replay: true });
    expect(a[1]).toEqual(b[1]);
    expect(a[1]).toMatchObject({ type: 'result', output: { call: 1, input: 'one' } });
    const later = await lines(
      await invoke(app, { request_id: 'dup', capability: 'summarize', input: 'three' }),
    );
    expect(later[1]).toEqual(a[1]);
    expect(calls).toBe(1);
  });

  it('answers 429 OVERLOADED before any ack beyond capacity, and frees the slot afterwards', async () => {
    const release = deferred();
    const { app, gauge } = makeApp(async () => {
      await release.promise;
      return 'ok';
    }, 2);
    const running = [await invoke(app, { request_id: 'o-1', capability: 'summarize', input: 1 })];
    running.push(await invoke(app, { request_id: 'o-2', capability: 'summarize', input: 2 }));
    const refused = await invoke(app, { request_id: 'o-3', capability: 'summarize', input: 3 });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'OVERLOADED' });
    expect((await (await app.request('/health')).json()) as unknown).toMatchObject({
      in_flight: 2,
      capacity: 2,
    });
    release.resolve();
    await Promise.all(running.map(lines));
    expect(gauge.inFlight).toBe(0);
    const after = await lines(await invoke(app, { request_id: 'o-3', capability: 'summarize', input: 3 }));
    expect(after[1]).toMatchObject({ type: 'result' });
  });

  it('aborts the handler when the caller goes away, and a retry with the same id runs again', async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    let calls = 0;
    const { app, gauge } = makeApp(async (ctx: InvokeContext) => {
      calls += 1;
      if (calls > 1) return 'second run';
      started.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      aborted.resolve(ctx.signal.reason);
      throw ctx.signal.reason;
    });
    const response = await invoke(app, { request_id: 'gone', capability: 'summarize', input: null });
    const reader = response.body!.getReader();
    await reader.read();
    await started.promise;
    await reader.cancel();
    expect(((await aborted.promise) as DOMException).name).toBe('AbortError');
    await expect.poll(() => gauge.inFlight).toBe(0);
    const retry = await lines(
      await invoke(app, { request_id: 'gone', capability: 'summarize', input: null }),
    );
    expect(retry[0]).not.toHaveProperty('replay');
    expect(retry[1]).toMatchObject({ type: 'result', output: 'second run' });
  });

  it('ends with TIMEOUT at the deadline and aborts the handler', async () => {
    const reason = deferred<unknown>();
    const { app } = makeApp(async (ctx) => {
      expect(ctx.timeRemaining()).toBeLessThanOrEqual(50);
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      reason.resolve(ctx.signal.reason);
      return 'too late';
    });
    const got = await lines(
      await invoke(app, { request_id: 'slow', capability: 'summarize', input: null, deadline_ms: 50 }),
    );
    expect(got[1]).toMatchObject({ type: 'error', code: 'TIMEOUT', retryable: true });
    expect(((await reason.promise) as DOMException).name).toBe('TimeoutError');
  });

  it('passes a valid traceparent to the handler and drops a malformed one', async () => {
    const { app } = makeApp((ctx) => ctx.traceparent ?? 'none');
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const good = await lines(
      await invoke(app, { request_id: 't-1', capability: 'summarize', input: 1 }, { traceparent: tp }),
    );
    expect(good[1]).toMatchObject({ output: tp });
    const bad = await lines(
      await invoke(app, { request_id: 't-2', capability: 'summarize', input: 1 }, { traceparent: 'junk' }),
    );
    expect(bad[1]).toMatchObject({ output: 'none' });
  });

  it('does not run the handler when the caller left before it started, and frees the slot', async () => {
    let calls = 0;
    const { app, gauge } = makeApp(() => {
      calls += 1;
      return 'ran';
    });
    const response = await invoke(app, { request_id: 'early', capability: 'summarize', input: null });
    await response.body!.cancel();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(0);
    expect(gauge.inFlight).toBe(0);
  });

  it('runs every handler inside the invoke hook with the call info', async () => {
    const seen: InvokeInfo[] = [];
    const hook: InvokeHook = async (info, run) => {
      seen.push(info);
      return run();
    };
    const { app } = makeApp(() => 'hooked', 4, hook);
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const got = await lines(
      await invoke(
        app,
        { request_id: 'h-1', capability: 'summarize', input: 1, caller: 'orc' },
        { traceparent: tp },
      ),
    );
    expect(got[1]).toMatchObject({ output: 'hooked' });
    expect(seen).toEqual([{ requestId: 'h-1', capability: 'summarize', traceparent: tp, caller: 'orc' }]);
  });
});
