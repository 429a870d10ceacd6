import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../clock/index.js';
import {
  A2A_VERSION,
  AgentCard,
  Declaration,
  InvokeRequest,
  type InvokeRequestInput,
  ReachError,
  sendMessageParams,
} from '../protocol/index.js';
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
    clock: systemClock,
    ledger: { maxEntries: 100, ttlMs: 60_000 },
  });
  return { app, card, gauge };
}

const A2A_HEADERS = { 'content-type': 'application/json', 'a2a-version': A2A_VERSION };

/** Sends one call as A2A `SendStreamingMessage` on the JSON-RPC binding. */
const invoke = (
  app: ReturnType<typeof makeApp>['app'],
  call: InvokeRequestInput | string,
  headers: Record<string, string> = {},
) =>
  app.request('/a2a/jsonrpc', {
    method: 'POST',
    headers: { ...A2A_HEADERS, ...headers },
    body:
      typeof call === 'string'
        ? call
        : JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SendStreamingMessage',
            params: sendMessageParams(InvokeRequest.parse(call)),
          }),
  });

const rpc = (app: ReturnType<typeof makeApp>['app'], method: string, params: unknown) =>
  app.request('/a2a/jsonrpc', {
    method: 'POST',
    headers: A2A_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }),
  });

// biome-ignore lint/suspicious/noExplicitAny: the test reads A2A JSON as it comes off the wire
type Event = Record<string, any>;
const sseData = (text: string): Event[] =>
  text
    .split('\n\n')
    .filter((block) => block.trim().length > 0)
    .map((block) => JSON.parse(block.replace(/^data: /, '')).result as Event);

/** The stream's events as `kind:state` labels plus the events themselves. */
async function events(response: Response): Promise<{ labels: string[]; all: Event[] }> {
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const all = sseData(await response.text());
  const labels = all.map((e) => {
    if (e.task) return `task:${e.task.status.state}`;
    if (e.statusUpdate) return `status:${e.statusUpdate.status.state}`;
    if (e.artifactUpdate) return 'artifact';
    return 'message';
  });
  return { labels, all };
}

const outputOf = (all: Event[]) => {
  const part = all.find((e) => e.artifactUpdate)?.artifactUpdate.artifact.parts[0];
  return part === undefined ? null : (part.data ?? part.text);
};
const failureOf = (all: Event[]) => {
  const status = all.at(-1)?.statusUpdate?.status ?? all.at(-1)?.task?.status;
  return {
    state: status.state,
    text: status.message?.parts[0]?.text,
    ...status.message?.metadata?.['https://agent-reach.dev/extensions/capabilities/v1'],
  };
};

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

describe('A2A JSON-RPC binding', () => {
  it('streams the task (the ack), progress, the output artifact, then COMPLETED', async () => {
    const { app } = makeApp((ctx) => {
      ctx.progress('halfway', 0.5);
      return { summary: `${ctx.capability}:${(ctx.input as { text: string }).text}` };
    });
    const response = await invoke(app, { request_id: 'r-1', capability: 'summarize', input: { text: 'hi' } });
    expect(response.status).toBe(200);
    const { labels, all } = await events(response);
    expect(labels).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'artifact',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(all[1]?.statusUpdate.status.message.parts[0].text).toBe('halfway');
    expect(outputOf(all)).toEqual({ summary: 'summarize:hi' });
    const task = (await (await rpc(app, 'GetTask', { id: all[0]?.task.id })).json()) as Event;
    expect(task.result.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.result.artifacts[0].parts[0].data).toEqual({ summary: 'summarize:hi' });
  });

  it('sends the ack before the handler finishes', async () => {
    const release = deferred();
    const { app } = makeApp(async () => {
      await release.promise;
      return 'done';
    });
    const response = await invoke(app, { request_id: 'r-ack', capability: 'summarize', input: {} });
    const reader = response.body!.getReader();
    const first = sseData(new TextDecoder().decode((await reader.read()).value));
    expect(first[0]?.task.status.state).toBe('TASK_STATE_WORKING');
    release.resolve();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(outputOf(sseData(rest))).toBe('done');
  });

  it('maps a catalog capability to the operation serving it, refuses unknown ones, and defaults to the first', async () => {
    const { app } = makeApp((ctx) => ctx.capability);
    const served = await events(await invoke(app, { request_id: 'r-w', capability: 'writing', input: null }));
    expect(outputOf(served.all)).toBe('summarize');
    const unknown = (await (
      await invoke(app, { request_id: 'r-u', capability: 'planning', input: null })
    ).json()) as Event;
    expect(unknown.error.data[0]).toMatchObject({
      reason: 'UNKNOWN_CAPABILITY',
      metadata: { code: 'UNKNOWN_CAPABILITY' },
    });
    const first = await events(await invoke(app, { request_id: 'r-a', input: null }));
    expect(outputOf(first.all)).toBe('summarize');
  });

  it('answers bad input with a JSON-RPC error (or 413) before any ack', async () => {
    const { app } = makeApp(() => null);
    const broken = (await (await invoke(app, '{"jsonrpc":')).json()) as Event;
    expect(broken.error.code).toBe(-32700);
    const wrong = await invoke(
      app,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'SendStreamingMessage',
        params: {
          message: {
            messageId: 'has space',
            role: 'ROLE_USER',
            parts: [{ text: 'x' }],
            metadata: { 'https://agent-reach.dev/extensions/capabilities/v1': { deadline_ms: -1 } },
          },
        },
      }),
    );
    const body = (await wrong.json()) as Event;
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain('deadline_ms');
    const noVersion = await app.request('/a2a/jsonrpc', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(((await noVersion.json()) as Event).error.data[0].reason).toBe('VERSION_NOT_SUPPORTED');
    const huge = await invoke(app, { request_id: 'r-big', capability: 'summarize', input: 'x'.repeat(5000) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const missing = (await (await rpc(app, 'GetTask', { id: 'nope' })).json()) as Event;
    expect(missing.error.code).toBe(-32001);
  });

  it('ends failed tasks FAILED with our code; unknown errors are not leaked', async () => {
    const { app } = makeApp((ctx) => {
      if ((ctx.input as { kind: string }).kind === 'reach')
        throw new ReachError('VALIDATION_FAILED', 'input.text: required');
      throw new Error('secret internals at /srv/db');
    });
    const known = await events(
      await invoke(app, { request_id: 'e-1', capability: 'summarize', input: { kind: 'reach' } }),
    );
    expect(failureOf(known.all)).toEqual({
      state: 'TASK_STATE_FAILED',
      text: 'input.text: required',
      code: 'VALIDATION_FAILED',
      retryable: false,
    });
    const unknown = await events(
      await invoke(app, { request_id: 'e-2', capability: 'summarize', input: { kind: 'x' } }),
    );
    expect(failureOf(unknown.all)).toMatchObject({ state: 'TASK_STATE_FAILED', code: 'INTERNAL' });
    expect(JSON.stringify(unknown.all)).not.toContain('secret');
  });

  it('answers a repeated request_id (messageId) with the first task, also while it still runs', async () => {
    const release = deferred();
    let calls = 0;
    const { app } = makeApp(async (ctx) => {
      calls += 1;
      await release.promise;
      return { call: calls, input: ctx.input };
    });
    const firstResponse = await invoke(app, { request_id: 'dup', capability: 'summarize', input: 'one' });
    const secondResponse = await invoke(app, { request_id: 'dup', capability: 'summarize', input: 'two' });
    release.resolve();
    const [a, b] = await Promise.all([events(firstResponse), events(secondResponse)]);
    expect(b.all[0]?.task.id).toBe(a.all[0]?.task.id);
    expect(outputOf(b.all)).toEqual({ call: 1, input: 'one' });
    const later = await events(
      await invoke(app, { request_id: 'dup', capability: 'summarize', input: 'three' }),
    );
    expect(later.labels).toEqual(['task:TASK_STATE_COMPLETED']);
    expect(later.all[0]?.task.id).toBe(a.all[0]?.task.id);
    expect(later.all[0]?.task.artifacts[0].parts[0].data).toEqual({ call: 1, input: 'one' });
    expect(calls).toBe(1);
  });

  it('answers 429 with OVERLOADED before any ack beyond capacity, and frees the slot afterwards', async () => {
    const release = deferred();
    const { app, gauge } = makeApp(async () => {
      await release.promise;
      return 'ok';
    }, 2);
    const running = [await invoke(app, { request_id: 'o-1', capability: 'summarize', input: 1 })];
    running.push(await invoke(app, { request_id: 'o-2', capability: 'summarize', input: 2 }));
    const refused = await invoke(app, { request_id: 'o-3', capability: 'summarize', input: 3 });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as Event).error.data[0].metadata.code).toBe('OVERLOADED');
    expect((await (await app.request('/health')).json()) as unknown).toMatchObject({
      in_flight: 2,
      capacity: 2,
    });
    release.resolve();
    await Promise.all(running.map(events));
    expect(gauge.inFlight).toBe(0);
    const after = await events(await invoke(app, { request_id: 'o-3', capability: 'summarize', input: 3 }));
    expect(after.labels.at(-1)).toBe('status:TASK_STATE_COMPLETED');
  });

  it('cancels a running task on CancelTask: CANCELED, the handler aborted, the slot freed', async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const { app, gauge } = makeApp(async (ctx: InvokeContext) => {
      started.resolve();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      aborted.resolve(ctx.signal.reason);
      throw ctx.signal.reason;
    });
    const response = await invoke(app, { request_id: 'c-1', capability: 'summarize', input: null });
    const reader = response.body!.getReader();
    const ack = sseData(new TextDecoder().decode((await reader.read()).value));
    await started.promise;
    const cancelled = (await (await rpc(app, 'CancelTask', { id: ack[0]?.task.id })).json()) as Event;
    expect(cancelled.result.status.state).toBe('TASK_STATE_CANCELED');
    expect(((await aborted.promise) as DOMException).name).toBe('AbortError');
    await expect.poll(() => gauge.inFlight).toBe(0);
    const again = (await (await rpc(app, 'CancelTask', { id: ack[0]?.task.id })).json()) as Event;
    expect(again.error.code).toBe(-32002);
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
    const first = sseData(new TextDecoder().decode((await reader.read()).value));
    await started.promise;
    await reader.cancel();
    expect(((await aborted.promise) as DOMException).name).toBe('AbortError');
    await expect.poll(() => gauge.inFlight).toBe(0);
    const retry = await events(
      await invoke(app, { request_id: 'gone', capability: 'summarize', input: null }),
    );
    expect(retry.all[0]?.task.id).not.toBe(first[0]?.task.id);
    expect(outputOf(retry.all)).toBe('second run');
  });

  it('ends with TIMEOUT at the deadline and aborts the handler', async () => {
    const reason = deferred<unknown>();
    const { app } = makeApp(async (ctx) => {
      expect(ctx.timeRemaining()).toBeLessThanOrEqual(50);
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      reason.resolve(ctx.signal.reason);
      return 'too late';
    });
    const got = await events(
      await invoke(app, { request_id: 'slow', capability: 'summarize', input: null, deadline_ms: 50 }),
    );
    expect(failureOf(got.all)).toMatchObject({
      state: 'TASK_STATE_FAILED',
      code: 'TIMEOUT',
      retryable: true,
    });
    expect(((await reason.promise) as DOMException).name).toBe('TimeoutError');
  });

  it('passes a valid traceparent to the handler and drops a malformed one', async () => {
    const { app } = makeApp((ctx) => ctx.traceparent ?? 'none');
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const good = await events(
      await invoke(app, { request_id: 't-1', capability: 'summarize', input: 1 }, { traceparent: tp }),
    );
    expect(outputOf(good.all)).toBe(tp);
    const bad = await events(
      await invoke(app, { request_id: 't-2', capability: 'summarize', input: 1 }, { traceparent: 'junk' }),
    );
    expect(outputOf(bad.all)).toBe('none');
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
    const got = await events(
      await invoke(
        app,
        { request_id: 'h-1', capability: 'summarize', input: 1, caller: 'orc' },
        { traceparent: tp },
      ),
    );
    expect(outputOf(got.all)).toBe('hooked');
    expect(seen).toEqual([{ requestId: 'h-1', capability: 'summarize', traceparent: tp, caller: 'orc' }]);
  });
});

describe('A2A HTTP+JSON binding', () => {
  const rest = (app: ReturnType<typeof makeApp>['app'], path: string, body?: unknown) =>
    app.request(`/a2a/rest${path}`, {
      method: body === undefined && !path.endsWith(':cancel') ? 'GET' : 'POST',
      headers: A2A_HEADERS,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('sends (blocking), streams, gets and cancels tasks', async () => {
    const release = deferred();
    const { app } = makeApp(async (ctx) => {
      if (ctx.input === 'wait') await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      if (ctx.input === 'hold') await release.promise;
      return `got ${String(ctx.input)}`;
    });
    const sent = (await (
      await rest(
        app,
        '/message:send',
        sendMessageParams({ request_id: 's-1', capability: 'summarize', input: 'x' }),
      )
    ).json()) as Event;
    expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(sent.task.artifacts[0].parts[0].text).toBe('got x');
    const fetched = (await (await rest(app, `/tasks/${sent.task.id}`)).json()) as Event;
    expect(fetched.id).toBe(sent.task.id);

    const streamed = await rest(
      app,
      '/message:stream',
      sendMessageParams({ request_id: 's-2', capability: 'summarize', input: 'hold' }),
    );
    const reader = streamed.body!.getReader();
    const ack = JSON.parse(
      new TextDecoder().decode((await reader.read()).value).replace(/^data: /, ''),
    ) as Event;
    expect(ack.task.status.state).toBe('TASK_STATE_WORKING');
    release.resolve();
    let rest2 = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest2 += new TextDecoder().decode(chunk.value);
    expect(rest2).toContain('TASK_STATE_COMPLETED');

    const waiting = (await (
      await rest(app, '/message:send', {
        ...sendMessageParams({ request_id: 's-3', capability: 'summarize', input: 'wait' }),
        configuration: { returnImmediately: true },
      })
    ).json()) as Event;
    expect(waiting.task.status.state).toBe('TASK_STATE_WORKING');
    const cancelled = (await (await rest(app, `/tasks/${waiting.task.id}:cancel`)).json()) as Event;
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    const notFound = await rest(app, '/tasks/unknown');
    expect(notFound.status).toBe(404);
    expect(((await notFound.json()) as Event).error.details[0].reason).toBe('TASK_NOT_FOUND');
    const busyCode = await rest(
      app,
      '/message:send',
      sendMessageParams({ request_id: 's-4', capability: 'planning', input: 1 }),
    );
    expect(busyCode.status).toBe(422);
    expect(((await busyCode.json()) as Event).error.status).toBe('UNKNOWN_CAPABILITY');
  });
});
