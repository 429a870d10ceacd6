import { z } from 'zod';
import { A2ATarget } from './card.js';
import { CapabilityId } from './catalog.js';
import { AgentName } from './declaration.js';

/**
 * `POST /v1/agents/external` body: an A2A agent not built with the SDK joins by its card URL. Without
 * `capabilities`, every skill whose id is (or normalises to) a capability id is published under it.
 */
export const ExternalAgentRequest = z
  .object({
    card_url: z.url({ protocol: /^https?$/ }).max(2048),
    /** Skill id → capability id; only the mapped skills are published. */
    capabilities: z.record(z.string().min(1).max(200), CapabilityId).optional(),
    /** The agent name (a DNS label); defaults to the card's name, lower-cased into a label. */
    agent_name: AgentName.optional(),
    /** @default 'external' */
    domain: z
      .string()
      .regex(/^[a-z][a-z0-9_.-]{0,62}$/, 'domain is a lower-case identifier')
      .optional(),
    /** Whether calls may be re-sent elsewhere after the agent acknowledged them. @default false */
    idempotent: z.boolean().optional(),
    priority: z.number().int().min(0).max(100).optional(),
  })
  .strict();
export type ExternalAgentRequest = z.infer<typeof ExternalAgentRequest>;

/** The registry's answer: the registration it made on the agent's behalf and what it publishes. */
export const ExternalAgentResponse = z.object({
  instance_id: z.string(),
  agent_name: z.string(),
  /** Skill id → capability id, as published. */
  capabilities: z.record(z.string(), z.string()),
  card_url: z.string(),
  card_sha256: z.string(),
  a2a: A2ATarget,
  declaration_version: z.string(),
  /** The registry probes the card this often; a failed probe is a missed heartbeat. */
  probe_interval_ms: z.number().int().positive(),
  /** Deregisters it (`DELETE /v1/agents/{id}` with `Authorization: Bearer <lease_token>`). */
  lease_token: z.string(),
});
export type ExternalAgentResponse = z.infer<typeof ExternalAgentResponse>;
