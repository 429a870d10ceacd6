import http from 'node:http';
import https from 'node:https';
import { codeOfAttempt, invokeAttempt } from '@agent-reach/sdk/client';
import { type Clock, systemClock } from '@agent-reach/sdk/clock';
import type { CallAttempt } from './ports.js';

/** The call path's three timeouts (`agent_sdk` in config). */
export interface SdkCallOptions {
  connectTimeoutMs: number;
  ackTimeoutMs: number;
  executionTimeoutMs: number;
  clock?: Clock;
}

/**
 * One attempt through the SDK's call primitive (`invokeAttempt`): the same connect / ack / execution
 * timers, NDJSON handling and failure classes as every ReachClient call, over kept-alive connections.
 */
export function sdkCallAttempt(options: SdkCallOptions): { call: CallAttempt; close: () => void } {
  const agents = {
    http: new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
    https: new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
  };
  const clock = options.clock ?? systemClock;
  const call: CallAttempt = async (target, request, { traceparent, signal }) => {
    const outcome = await invokeAttempt(
      {
        host: target.address,
        port: target.port,
        scheme: target.card.url?.startsWith('https:') ? 'https' : 'http',
      },
      {
        body: JSON.stringify(request),
        headers: traceparent ? { traceparent } : {},
        signal,
        agents,
        clock,
        connectMs: options.connectTimeoutMs,
        ackMs: options.ackTimeoutMs,
        executionMs: Math.min(options.executionTimeoutMs, request.deadline_ms),
      },
    );
    if (outcome.ok) return { ok: true, output: outcome.output, ms: outcome.latencyMs };
    return {
      ok: false,
      failure: outcome.failure,
      code: codeOfAttempt({
        ...outcome,
        instance_id: target.instance,
        agent_name: target.agent_name,
        attempt: 1,
        latency_ms: outcome.latencyMs,
      }),
      message: outcome.message,
      acked: outcome.acked,
      ...(outcome.retryable === undefined ? {} : { retryable: outcome.retryable }),
      ms: outcome.latencyMs,
    };
  };
  return {
    call,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
