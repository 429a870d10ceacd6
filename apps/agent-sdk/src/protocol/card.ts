import { z } from 'zod';
import { CapabilityId } from './catalog.js';
import { type Declaration, publishedCapabilities } from './declaration.js';
import type { Endpoint } from './registration.js';

/** The URI of Agent Reach's A2A extension (card params and per-message metadata key). */
export const REACH_CARD_EXTENSION = 'https://agent-reach.dev/extensions/capabilities/v1';
/** Where every agent serves its card (the path of the SVCB `cap` URL, DNS-AID key65400). */
export const CARD_PATH = '/.well-known/agent-card.json';
/** The A2A protocol version our agents speak and our callers ask for (`A2A-Version` header). */
export const A2A_VERSION = '1.0';
/** Where an SDK agent serves the A2A JSON-RPC binding. */
export const A2A_JSONRPC_PATH = '/a2a/jsonrpc';
/** The base path of an SDK agent's A2A HTTP+JSON binding (`…/message:stream`, `…/tasks/{id}`). */
export const A2A_REST_PATH = '/a2a/rest';

/** The A2A protocol bindings a caller of ours can use, in order of preference. */
export const A2A_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;
export type A2ABinding = (typeof A2A_BINDINGS)[number];

/** One `supportedInterfaces` entry of an A2A v1.0 card. */
export const AgentInterface = z.looseObject({
  url: z.url({ protocol: /^https?$/ }),
  protocolBinding: z.string().min(1),
  protocolVersion: z.string().optional(),
  tenant: z.string().optional(),
});
export type AgentInterface = z.infer<typeof AgentInterface>;

/** An A2A v1.0 skill. */
export const AgentSkill = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
});
export type AgentSkill = z.infer<typeof AgentSkill>;

/** An A2A extension declaration (`capabilities.extensions[]`). */
export const AgentExtension = z.looseObject({
  uri: z.string().min(1),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** Our extension's params: what routing and the orchestrator read from a card. */
export const ReachCardExtensionParams = z.object({
  capability_ids: z.array(z.string()),
  domain: z.string(),
  /** The declaration's operations: input, output, constraints, serves, idempotency, examples. */
  operations: z.record(z.string(), z.unknown()),
  idempotent: z.boolean(),
  priority: z.number(),
  declaration_version: z.string(),
});
export type ReachCardExtensionParams = z.infer<typeof ReachCardExtensionParams>;

/**
 * An A2A v1.0 agent card (field names as in the spec; fields we do not read are kept). Our agents
 * add our extension; anyone's card is accepted without it.
 */
export const AgentCard = z.looseObject({
  name: z.string().min(1),
  description: z.string(),
  supportedInterfaces: z.array(AgentInterface).min(1),
  version: z.string(),
  capabilities: z
    .looseObject({
      streaming: z.boolean().optional(),
      pushNotifications: z.boolean().optional(),
      extensions: z.array(AgentExtension).default([]),
    })
    .default({ extensions: [] }),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkill),
});
export type AgentCard = z.infer<typeof AgentCard>;

/** The base URL (`scheme://host:port`) of an endpoint. */
export function endpointBase(endpoint: Pick<Endpoint, 'host' | 'port' | 'scheme'>): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `${endpoint.scheme}://${host}:${endpoint.port}`;
}

/** Builds the card an agent serves from its declaration and endpoint. */
export function buildAgentCard(declaration: Declaration, endpoint: Endpoint): AgentCard {
  const base = endpointBase(endpoint);
  const params: ReachCardExtensionParams = {
    capability_ids: [...publishedCapabilities(declaration)],
    domain: declaration.domain,
    operations: declaration.capabilities,
    idempotent: declaration.idempotent,
    priority: declaration.priority,
    declaration_version: declaration.version,
  };
  const modes = ['application/json', 'text/plain'];
  return {
    name: declaration.agent_name,
    description: declaration.description ?? `${declaration.agent_name} (${declaration.domain})`,
    supportedInterfaces: [
      { url: `${base}${A2A_JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: A2A_VERSION },
      { url: `${base}${A2A_REST_PATH}`, protocolBinding: 'HTTP+JSON', protocolVersion: A2A_VERSION },
    ],
    version: declaration.version,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [
        {
          uri: REACH_CARD_EXTENSION,
          description:
            'Agent Reach capability declaration: domain, operations with constraints, idempotency, declaration version',
          required: false,
          params,
        },
      ],
    },
    defaultInputModes: modes,
    defaultOutputModes: modes,
    skills: Object.entries(declaration.capabilities).map(([id, op]) => ({
      id,
      name: id,
      description: op.description ?? `${id}: ${op.input.join(', ')} -> ${op.output.join(', ')}`,
      tags: [...new Set([declaration.domain, ...op.serves, ...(op.tags ?? [])])],
      examples: op.examples ?? [],
      inputModes: modes,
      outputModes: modes,
    })),
  };
}

/** Reads our extension's params from a card, or null when the card has none (e.g. anyone's agent). */
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

/** Where and how to call an A2A agent. */
export const A2ATarget = z.object({
  url: z.url({ protocol: /^https?$/ }),
  binding: z.enum(A2A_BINDINGS),
});
export type A2ATarget = z.infer<typeof A2ATarget>;

/** The interface of a card we call: JSON-RPC first, then HTTP+JSON, on A2A 1.x; null when none fits. */
export function callableInterface(card: Pick<AgentCard, 'supportedInterfaces'>): A2ATarget | null {
  for (const binding of A2A_BINDINGS) {
    const found = card.supportedInterfaces.find(
      (i) =>
        i.protocolBinding.toUpperCase() === binding &&
        (i.protocolVersion === undefined || i.protocolVersion === '' || i.protocolVersion.startsWith('1.')),
    );
    if (found) return { url: found.url, binding };
  }
  return null;
}

/** The A2A target of an SDK agent, derived from its endpoint (the JSON-RPC binding its card lists first). */
export function sdkAgentTarget(endpoint: Pick<Endpoint, 'host' | 'port' | 'scheme'>): A2ATarget {
  return { url: `${endpointBase(endpoint)}${A2A_JSONRPC_PATH}`, binding: 'JSONRPC' };
}
