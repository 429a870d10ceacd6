import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../clock/index.js';
import { behaviours, closedPort, startTestAgent, type TestAgent } from '../testing/test-agents.js';
import { a2aAttempt } from './a2a-attempt.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

async function agent(behaviour: Parameters<typeof startTestAgent>[0]) {
  const started = await startTestAgent(behaviour);
  agents.push(started);
  return started;
}

const request = { request_id: 'req-1', input: { text: 'hi' } };
const timeouts = { connectMs: 300, ackMs: 400, executionMs: 400 };
const at = (port: number) => ({ url: `http://127.0.0.1:${port}/a2a/jsonrpc`, binding: 'JSONRPC' as const });

describe('a2aAttempt', () => {
  it('returns the result after ack and progress lines', async () => {
    const progress: string[] = [];
    const a = await agent(async (x) => {
      x.ack();
      x.progress('half way');
      x.result({ summary: 'ok' });
    });
    const outcome = await a2aAttempt(at(a.port), {
      request,
      clock: systemClock,
      ...timeouts,
      onProgress: (line) => progress.push(line.message ?? ''),
    });
    expect(outcome).toMatchObject({ ok: true, output: { summary: 'ok' }, acked: true });
    expect(progress).toEqual(['half way']);
  });

  it('classifies nothing listening as connect, before any ack', async () => {
    const outcome = await a2aAttempt(at(await closedPort()), { request, clock: systemClock, ...timeouts });
    expect(outcome).toMatchObject({ ok: false, failure: 'connect', acked: false });
  });

  it('classifies a socket that accepts and never acks as ack_timeout after the ack timeout', async () => {
    const a = await agent(behaviours.silent());
    const started = performance.now();
    const outcome = await a2aAttempt(at(a.port), { request, clock: systemClock, ...timeouts });
    const elapsed = performance.now() - started;
    expect(outcome).toMatchObject({ ok: false, failure: 'ack_timeout', acked: false });
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(700);
  });

  it('classifies ack then silence as execution_timeout, after the ack', async () => {
    const a = await agent(behaviours.ackThenSilent());
    const outcome = await a2aAttempt(at(a.port), { request, clock: systemClock, ...timeouts });
    expect(outcome).toMatchObject({ ok: false, failure: 'execution_timeout', acked: true });
  });

  it('lets a deadline replace the execution timeout', async () => {
    const a = await agent(behaviours.answer('late but in time', 600));
    const outcome = await a2aAttempt(at(a.port), {
      request,
      clock: systemClock,
      ...timeouts,
      deadlineAt: systemClock.now() + 1500,
    });
    expect(outcome).toMatchObject({ ok: true, output: 'late but in time' });
  });

  it('classifies 5xx, 429 and other statuses before the ack, keeping the agent’s code', async () => {
    const five = await agent(behaviours.status(503, { code: 'UNAVAILABLE', message: 'draining' }));
    const busy = await agent(behaviours.status(429, { code: 'OVERLOADED', message: 'at capacity' }));
    const bad = await agent(behaviours.status(422, { code: 'UNKNOWN_CAPABILITY', message: 'no such op' }));
    const options = { request, clock: systemClock, ...timeouts };
    expect(await a2aAttempt(at(five.port), options)).toMatchObject({
      failure: 'http_5xx',
      acked: false,
      status: 503,
      message: 'draining',
    });
    expect(await a2aAttempt(at(busy.port), options)).toMatchObject({
      failure: 'overloaded',
      acked: false,
    });
    expect(await a2aAttempt(at(bad.port), options)).toMatchObject({
      failure: 'agent_error',
      acked: false,
      code: 'UNKNOWN_CAPABILITY',
    });
  });

  it('classifies a crash mid-stream as stream_broken after the ack, and before it when no ack came', async () => {
    const afterAck = await agent(behaviours.crashAfterAck());
    const beforeAck = await agent((x) => x.crash());
    const options = { request, clock: systemClock, ...timeouts };
    expect(await a2aAttempt(at(afterAck.port), options)).toMatchObject({
      failure: 'stream_broken',
      acked: true,
    });
    expect(await a2aAttempt(at(beforeAck.port), options)).toMatchObject({
      failure: 'stream_broken',
      acked: false,
    });
  });

  it('reports an error line with its code and retryable flag; OVERLOADED lines count as overloaded', async () => {
    const failing = await agent((x) => {
      x.ack();
      x.error('VALIDATION_FAILED', 'bad input', false);
    });
    const busy = await agent((x) => x.error('OVERLOADED', 'busy', true));
    const options = { request, clock: systemClock, ...timeouts };
    expect(await a2aAttempt(at(failing.port), options)).toMatchObject({
      failure: 'agent_error',
      acked: true,
      code: 'VALIDATION_FAILED',
      retryable: false,
    });
    expect(await a2aAttempt(at(busy.port), options)).toMatchObject({
      failure: 'overloaded',
      acked: false,
    });
  });

  it('aborting the signal sends A2A CancelTask and the agent sees its caller go away', async () => {
    const a = await agent(behaviours.answer('too late', 5000));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const outcome = await a2aAttempt(at(a.port), {
      request,
      clock: systemClock,
      ...timeouts,
      executionMs: 10_000,
      signal: controller.signal,
    });
    expect(outcome).toMatchObject({ ok: false, failure: 'cancelled', acked: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(a.cancelled).toEqual(['req-1']);
    expect(a.aborted).toEqual(['req-1']);
  });

  it('cancels the task at the agent on an execution timeout', async () => {
    const a = await agent(behaviours.ackThenSilent());
    const outcome = await a2aAttempt(at(a.port), { request, clock: systemClock, ...timeouts });
    expect(outcome).toMatchObject({ ok: false, failure: 'execution_timeout', acked: true });
    await expect.poll(() => a.cancelled).toEqual(['req-1']);
  });
});
