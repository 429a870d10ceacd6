import { z } from 'zod';
import { CapabilityId } from './catalog.js';
import { type Declaration, publishedCapabilities } from './declaration.js';
import type { Endpoint } from './registration.js';

/** The URI of Agent Reach's A2A card extension. */
export const REACH_CARD_EXTENSION = 'https://agent-reach.dev/extensions/capabilities/v1';
/** Where every agent serves its card (the path of the SVCB `cap` URL, DNS-AID key65400). */
export const CARD_PATH = '/.well-known/agent-card.json';

const Skill = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
});

/** Our extension's params: what routing and the orchestrator read from a card. */
export const ReachCardExtensionParams = z.object({
  capability_ids: z.array(z.string()),
  domain: z.string(),
  operations: z.record(z.string(), z.unknown()),
  idempotent: z.boolean(),
  priority: z.number(),
  declaration_version: z.string(),
});
export type ReachCardExtensionParams = z.infer<typeof ReachCardExtensionParams>;

/** An A2A v1 agent card (field names as in the A2A spec) carrying our extension. */
export const AgentCard = z.object({
  protocolVersion: z.string(),
  name: z.string(),
  description: z.string(),
  url: z.string(),
  preferredTransport: z.string(),
  version: z.string(),
  capabilities: z.object({
    streaming: z.boolean(),
    pushNotifications: z.boolean(),
    extensions: z.array(
      z.object({
        uri: z.string(),
        description: z.string().optional(),
        required: z.boolean().optional(),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    ),
  }),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(Skill),
});
export type AgentCard = z.infer<typeof AgentCard>;

/** Builds the card an agent serves from its declaration and endpoint. */
export function buildAgentCard(declaration: Declaration, endpoint: Endpoint): AgentCard {
  const base = `${endpoint.scheme}://${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
  const params: ReachCardExtensionParams = {
    capability_ids: publishedCapabilities(declaration),
    domain: declaration.domain,
    operations: declaration.capabilities,
    idempotent: declaration.idempotent,
    priority: declaration.priority,
    declaration_version: declaration.version,
  };
  return {
    protocolVersion: '0.3.0',
    name: declaration.agent_name,
    description: declaration.description ?? `${declaration.agent_name} (${declaration.domain})`,
    url: `${base}/v1/invoke`,
    preferredTransport: 'HTTP+JSON',
    version: declaration.version,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [{ uri: REACH_CARD_EXTENSION, required: false, params }],
    },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: Object.entries(declaration.capabilities).map(([id, op]) => ({
      id,
      name: id,
      description: op.description ?? `${id}: ${op.input.join(', ')} -> ${op.output.join(', ')}`,
      tags: [...new Set([declaration.domain, ...op.serves, ...(op.tags ?? [])])],
      ...(op.examples?.length ? { examples: op.examples } : {}),
    })),
  };
}

/** Reads our extension's params from a card, or null when the card has none. */
export function cardExtension(card: AgentCard): ReachCardExtensionParams | null {
  const ext = card.capabilities.extensions.find((e) => e.uri === REACH_CARD_EXTENSION);
  const parsed = ReachCardExtensionParams.safeParse(ext?.params);
  return parsed.success ? parsed.data : null;
}

/** What a planner reads from one card skill: the capability id it serves and its text. */
export interface CardSkill {
  /** The capability id (the skill id is the operation name, which is a capability id). */
  id: string;
  description: string;
  tags: string[];
  examples: string[];
}

/**
 * The card's skills whose id is a valid capability id, with their text — the one place skills are
 * read, so a change of the card's shape changes only this function.
 */
export function cardSkills(card: AgentCard): CardSkill[] {
  const out: CardSkill[] = [];
  for (const skill of card.skills) {
    if (!CapabilityId.safeParse(skill.id).success) continue;
    out.push({
      id: skill.id,
      description: skill.description,
      tags: skill.tags,
      examples: skill.examples ?? [],
    });
  }
  return out;
}
