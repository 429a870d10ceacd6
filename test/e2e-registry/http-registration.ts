import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { TOKENS } from './e2e-config.js';
import type { E2eEnv } from './e2e-env.js';

/** A `POST /v1/agents` body for an agent the test itself plays (no process behind the endpoint). */
export function registerBody(agentName: string, port: number, capability = 'crunch') {
  return {
    declaration: {
      agent_name: agentName,
      domain: 'testing',
      capabilities: { [capability]: { input: ['text'], output: ['text'] } },
    },
    endpoint: { host: '127.0.0.1', port },
    card_sha256: createHash('sha256').update(`card of ${agentName}`).digest('base64url'),
  };
}

/** Registers over HTTP with the all-capabilities token; returns the instance id and its lease header. */
export async function registerOverHttp(env: E2eEnv, agentName: string, port: number) {
  const reply = await env.api.send('POST', '/v1/agents', registerBody(agentName, port), {
    authorization: `Bearer ${TOKENS.agents}`,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return {
    id: reply.body.instance_id as string,
    lease: { authorization: `Bearer ${reply.body.lease_token as string}` },
  };
}
