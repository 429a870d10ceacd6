import { createHash } from 'node:crypto';
import { Declaration, type DeclarationInput, type RegisterRequestInput } from '@agent-reach/sdk/protocol';
import type { InstanceRecord } from '../store/records.js';

/** The seed article's summarizer declaration (section 3.3), serving the `writing` catalog capability. */
export function summarizerDeclaration(overrides: Partial<DeclarationInput> = {}): DeclarationInput {
  return {
    agent_name: 'summarizer-v2',
    domain: 'text_processing',
    version: '1',
    capabilities: {
      summarize: {
        input: ['text', 'max_length'],
        output: ['summary'],
        constraints: { max_tokens: 5000, response_time_sec: 2 },
        serves: ['writing'],
      },
    },
    priority: 80,
    idempotent: true,
    ...overrides,
  };
}

/** A card digest that passes the schema (the registry never fetches cards). */
export const CARD_SHA = createHash('sha256').update('card').digest('base64url');

/** A `POST /v1/agents` body for the summarizer on `port`. */
export function registerBody(port = 8001, overrides: Partial<DeclarationInput> = {}): RegisterRequestInput {
  return {
    declaration: summarizerDeclaration(overrides),
    endpoint: { host: '127.0.0.1', port },
    card_sha256: CARD_SHA,
  };
}

/** A stored instance record for pure-function tests. */
export function instanceRecord(instanceId = 'summarizer-v2-3f9c', port = 8001): InstanceRecord {
  return {
    instance_id: instanceId,
    agent_name: 'summarizer-v2',
    declaration: Declaration.parse(summarizerDeclaration()),
    endpoint: { host: '127.0.0.1', port, scheme: 'http', alpn: ['http/1.1'] },
    card_url: `http://127.0.0.1:${port}/.well-known/agent-card.json`,
    card_sha256: CARD_SHA,
    lease_token_hash: 'ab'.repeat(32),
    lease_id: '1',
    registered_at: 1_700_000_000_000,
  };
}
