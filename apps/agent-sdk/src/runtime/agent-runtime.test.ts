import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type DeclarationInput, isReachError, sendMessageParams } from '../protocol/index.js';
import { a2aCall } from '../testing/a2a-call.js';
import { FakeRegistry, freePort } from '../testing/fake-registry.js';
import { AgentRuntime } from './agent-runtime.js';
import type { InvokeHandler } from './invoke-context.js';
import { silentLogger } from './logger.js';
import type { AgentRuntimeOptions } from './runtime-options.js';

const declaration: DeclarationInput = {
  agent_name: 'summarizer-v2',
  domain: 'text_processing',
  capabilities: {
    summarize: { input: ['text', 'max_length'], output: ['summary'], constraints: { max_tokens: 5000 } },
  },
  priority: 80,
  idempotent: true,
};

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function registry(configure: (r: FakeRegistry) => void = () => {}): Promise<FakeRegistry> {
  const fake = new FakeRegistry();
  configure(fake);
  await fake.start();
  cleanups.push(() => fake.stop());
  return fake;
}

function runtime(controlPlaneUrl: string, options: Partial<AgentRuntimeOptions> = {}): AgentRuntime {
  const handler: InvokeHandler = (ctx) => ({ summary: String((ctx.input as { text?: string })?.text ?? '') });
  const agent = new AgentRuntime({
    agentName: 'summarizer-v2',
    controlPlaneUrl,
    declaration,
    handler,
    logger: silentLogger,
    ...options,
  });
  cleanups.push(() => agent.stop());
  return agent;
}

const health = async (url: string) =>
  (await fetch(`${url}/health`)).json() as Promise<{ status: string; instance_id: string | null }>;
const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

async function expectReachError(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(isReachError(error) ? error.code : error).toBe(code);
  return error as Error & { data?: Record<string, unknown> };
}

describe('AgentRuntime registration', () => {
  it('registers the served card digest with the registry token, then heartbeats with increasing seq', async () => {
    const fake = await registry((r) => {
      r.registryToken = 'registry-secret';
      r.heartbeatIntervalMs = 100;
    });
    const agent = runtime(fake.url, { registryToken: 'registry-secret', capacity: 3 });
    const registration = await agent.start();
    expect(fake.registrations).toHaveLength(1);
    const [sent] = fake.registrations;
    expect(sent!.auth).toBe('Bearer registry-secret');
    expect(registration.instanceId).toBe(sent!.instanceId);
    const card = Buffer.from(
      await (await fetch(`${registration.url}/.well-known/agent-card.json`)).arrayBuffer(),
    );
    expect(sent!.body.card_sha256).toBe(createHash('sha256').update(card).digest('base64url'));
    expect(`http://${sent!.body.endpoint.host}:${sent!.body.endpoint.port}`).toBe(registration.url);
    expect(await health(registration.url)).toMatchObject({
      status: 'ok',
      instance_id: registration.instanceId,
    });

    await fake.waitFor(() => fake.heartbeats.length >= 3, 5000, 'three heartbeats');
    const token = fake.instances.get(registration.instanceId)!.token;
    expect(fake.heartbeats.slice(0, 3).map((h) => h.body.seq)).toEqual([1, 2, 3]);
    expect(fake.heartbeats.every((h) => h.auth === `Bearer ${token}`)).toBe(true);
    expect(fake.heartbeats[0]!.body.load).toEqual({ in_flight: 0, capacity: 3, queue: 0 });
  });

  it('says starting and keeps trying with backoff while the registry is down, then registers', async () => {
    const port = await freePort();
    const agent = runtime(`http://127.0.0.1:${port}`, {
      registerBackoff: { initialMs: 20, maxMs: 100 },
      random: () => 0.999,
    });
    let settled = false;
    const started = agent.start().finally(() => {
      settled = true;
    });
    await expect.poll(() => agent.url).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    const early = await fetch(`${agent.url}/health`);
    expect(early.status).toBe(503);
    expect(await early.json()).toMatchObject({ status: 'starting', instance_id: null });

    const fake = new FakeRegistry();
    fake.failRegistrations = 2;
    await fake.start(port);
    cleanups.push(() => fake.stop());
    const registration = await started;
    expect(fake.attempts).toHaveLength(3);
    const gaps = fake.attempts.slice(1).map((at, i) => at - fake.attempts[i]!);
    // The ceiling has reached its 100 ms cap by now; random 0.999 draws just below it.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(90);
    expect(await health(registration.url)).toMatchObject({ status: 'ok' });
  });

  it('rejects start() after startTimeout but keeps registering in the background', async () => {
    const port = await freePort();
    const agent = runtime(`http://127.0.0.1:${port}`, {
      startTimeout: 150,
      registerBackoff: { initialMs: 20, maxMs: 50 },
    });
    await expectReachError(agent.start(), 'TIMEOUT');
    expect(agent.status).toBe('starting');
    const fake = new FakeRegistry();
    await fake.start(port);
    cleanups.push(() => fake.stop());
    await expect.poll(() => agent.registration, { timeout: 3000 }).not.toBeNull();
    expect(agent.registration?.instanceId).toBe(fake.registrations[0]?.instanceId);
    expect(agent.status).toBe('ok');
  });

  it('re-registers at once when the registry says the instance is unknown, restarting seq at 1', async () => {
    const fake = await registry((r) => {
      r.heartbeatIntervalMs = 400;
    });
    const agent = runtime(fake.url);
    const first = await agent.start();
    await fake.waitFor(() => fake.heartbeats.length >= 1, 5000, 'a heartbeat');
    fake.forget(first.instanceId);
    await fake.waitFor(() => fake.registrations.length === 2, 5000, 'a second registration');
    const refused = fake.heartbeats.filter((h) => h.instanceId === first.instanceId).at(-1)!;
    const second = fake.registrations[1]!;
    expect(second.instanceId).not.toBe(first.instanceId);
    // "At once": well before the next heartbeat would have been due.
    expect(second.at - refused.at).toBeLessThan(400);
    await fake.waitFor(
      () => fake.heartbeats.filter((h) => h.instanceId === second.instanceId).length >= 2,
      5000,
      'new beats',
    );
    const seqs = fake.heartbeats.filter((h) => h.instanceId === second.instanceId).map((h) => h.body.seq);
    expect(seqs.slice(0, 2)).toEqual([1, 2]);
    expect(agent.registration?.instanceId).toBe(second.instanceId);
  });

  it('fails start() with the registry refusal and stops serving', async () => {
    const fake = await registry((r) => {
      r.registryToken = 'needed-token';
    });
    const agent = runtime(fake.url, { registryToken: 'wrong-token' });
    await expectReachError(agent.start(), 'UNAUTHORIZED');
    expect(fake.attempts).toHaveLength(1);
    expect(agent.status).toBe('draining');
    await expect(fetch(`${agent.url}/health`)).rejects.toThrow();
  });

  it('refuses a bad declaration or a missing handler before serving or registering', async () => {
    const fake = await registry();
    const bad = runtime(fake.url, { declaration: { ...declaration, priority: 500 } });
    const error = await expectReachError(bad.start(), 'INVALID_DECLARATION');
    expect(error.data?.field).toBe('priority');
    expect(bad.url).toBeNull();
    await expectReachError(runtime(fake.url, { agentName: 'translator' }).start(), 'INVALID_DECLARATION');
    await expectReachError(runtime(fake.url, { handler: undefined }).start(), 'INVALID_CONFIG');
    await expectReachError(runtime(fake.url, { host: '0.0.0.0' }).start(), 'INVALID_CONFIG');
    expect(fake.attempts).toHaveLength(0);
  });
});

describe('AgentRuntime serving and shutdown', () => {
  it('stop() deregisters first, refuses new invokes while draining, and lets in-flight ones finish', async () => {
    const fake = await registry((r) => {
      r.heartbeatIntervalMs = 100;
    });
    const release = deferred();
    const agent = runtime(fake.url, {
      handler: async () => {
        await release.promise;
        return 'finished';
      },
    });
    const { url, instanceId } = await agent.start();
    const token = fake.instances.get(instanceId)!.token;
    const inFlight = a2aCall(url, { request_id: 'before-stop', input: {} });
    await expect
      .poll(async () => ((await (await fetch(`${url}/health`)).json()) as { in_flight: number }).in_flight)
      .toBe(1);
    const stopping = agent.stop();
    await fake.waitFor(() => fake.deletes.length === 1, 5000, 'the DELETE');
    expect(fake.deletes[0]).toMatchObject({ instanceId, auth: `Bearer ${token}` });
    const refused = await a2aCall(url, { request_id: 'after-stop', input: {} });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { data: [{ metadata: { code: 'UNAVAILABLE' } }] } });
    release.resolve();
    expect((await inFlight).lines.at(-1)).toEqual({ type: 'result', output: 'finished' });
    await stopping;
    const beats = fake.heartbeats.length;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(fake.heartbeats.length).toBe(beats);
  });

  it('aborts the handler when the client disconnects', async () => {
    const fake = await registry();
    const started = deferred();
    let reason: unknown;
    const aborted = deferred();
    const agent = runtime(fake.url, {
      handler: async (ctx) => {
        started.resolve();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        reason = ctx.signal.reason;
        aborted.resolve();
      },
    });
    const { url } = await agent.start();
    const req = request(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    });
    const ack = new Promise<string>((resolve) =>
      req.on('response', (res) => res.once('data', (c: Buffer) => resolve(c.toString()))),
    );
    const params = sendMessageParams({ request_id: 'bye', input: {} });
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params }));
    expect(JSON.parse((await ack).replace(/^data: /, '')).result.task.status.state).toBe(
      'TASK_STATE_WORKING',
    );
    await started.promise;
    req.destroy();
    await aborted.promise;
    expect((reason as DOMException).name).toBe('AbortError');
    await expect
      .poll(async () => (await (await fetch(`${url}/health`)).json()) as unknown)
      .toMatchObject({ in_flight: 0 });
  });
});
