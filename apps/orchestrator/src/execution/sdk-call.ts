import http from 'node:http';
import https from 'node:https';
import { a2aAttempt, codeOfAttempt } from '@agent-reach/sdk/client';
import { type Clock, systemClock } from '@agent-reach/sdk/clock';
import { type A2ATarget, callableInterface } from '@agent-reach/sdk/protocol';
import type { Candidate } from '../discovery/index.js';
import type { CallAttempt } from './ports.js';

/** The call path's three timeouts (`agent_sdk` in config). */
export interface SdkCallOptions {
  connectTimeoutMs: number;
  ackTimeoutMs: number;
  executionTimeoutMs: number;
  clock?: Clock;
}

/** The card's A2A interface, on the address and port DNS gave (a card never sends a call elsewhere). */
function a2aTargetOf(target: Candidate): A2ATarget | null {
  const found = callableInterface(target.card);
  if (!found) return null;
  const url = new URL(found.url);
  url.hostname = target.address.includes(':') ? `[${target.address}]` : target.address;
  url.port = String(target.port);
  return { url: url.toString(), binding: found.binding };
}

/**
 * One attempt through the SDK's call primitive (`a2aAttempt`): the same A2A streaming call, connect /
 * ack / execution timers and failure classes as every ReachClient call, over kept-alive connections.
 */
export function sdkCallAttempt(options: SdkCallOptions): { call: CallAttempt; close: () => void } {
  const agents = {
    http: new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
    https: new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
  };
  const clock = options.clock ?? systemClock;
  const call: CallAttempt = async (target, request, { traceparent, signal }) => {
    const a2a = a2aTargetOf(target);
    if (!a2a) {
      const message = `the card of ${target.instance} lists no A2A 1.x JSON-RPC or HTTP+JSON interface`;
      return { ok: false, failure: 'agent_error', code: 'BAD_REQUEST', message, acked: false, ms: 0 };
    }
    const outcome = await a2aAttempt(a2a, {
      request,
      headers: traceparent ? { traceparent } : {},
      signal,
      agents,
      clock,
      connectMs: options.connectTimeoutMs,
      ackMs: options.ackTimeoutMs,
      executionMs: Math.min(options.executionTimeoutMs, request.deadline_ms),
    });
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
