import { createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  type A2ATarget,
  AgentCard,
  AgentName,
  CapabilityId,
  callableInterface,
  type Declaration,
  type Endpoint,
  type ExternalAgentRequest,
  err,
  ok,
  ReachError,
  type Result,
} from '@agent-reach/sdk/protocol';

/** What a validated external card becomes: a declaration, where to call it, and what was mapped. */
export interface ExternalRegistration {
  declaration: Declaration;
  endpoint: Endpoint;
  a2a: A2ATarget;
  /** Skill id → capability id, as published. */
  mapping: Record<string, string>;
}

const invalid = (url: string, why: string, data: Record<string, unknown> = {}) =>
  err(new ReachError('CARD_INVALID', `card ${url}: ${why}`, { data: { card_url: url, ...data } }));

/** A skill id as a capability id: lower case, other characters as `_`, starting with a letter. */
function capabilityOf(skillId: string): string | null {
  const id = skillId
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return CapabilityId.safeParse(id).success ? id : null;
}

/** The card's name as an agent name (a DNS label without underscores), or null. */
function agentNameOf(name: string): string | null {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return AgentName.safeParse(label).success ? label : null;
}

function origin(url: URL): string {
  return `${url.protocol}//${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

/** The IP address behind a URL's host (the A record we publish). */
async function addressOf(host: string): Promise<string | null> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return bare;
  try {
    return (await lookup(bare)).address;
  } catch {
    return null;
  }
}

/**
 * Validates a fetched card (an A2A v1.0 card with a JSON-RPC or HTTP+JSON 1.x interface on the card's
 * own host and port) and maps its skills to capability ids: the request's mapping, else every skill
 * whose id is (or normalises to) one.
 */
export async function externalRegistration(
  request: ExternalAgentRequest,
  bytes: Buffer,
  sha256: string,
): Promise<Result<ExternalRegistration>> {
  const url = request.card_url;
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    return invalid(url, 'not JSON');
  }
  const parsed = AgentCard.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`);
    return invalid(url, `not an A2A v1.0 agent card (${issues.join('; ')})`, { issues });
  }
  const card = parsed.data;
  const a2a = callableInterface(card);
  if (!a2a)
    return invalid(url, 'no supportedInterfaces entry with protocolBinding JSONRPC or HTTP+JSON on A2A 1.x');
  const cardUrl = new URL(url);
  const callUrl = new URL(a2a.url);
  if (origin(cardUrl) !== origin(callUrl))
    return invalid(
      url,
      `its A2A interface ${a2a.url} is not on the card's host and port (DNS publishes one endpoint)`,
    );

  const mapping: Record<string, string> = {};
  const skills = new Map(card.skills.map((s) => [s.id, s]));
  if (request.capabilities) {
    const unknown = Object.keys(request.capabilities).filter((id) => !skills.has(id));
    if (unknown.length > 0)
      return err(
        new ReachError('NO_USABLE_SKILL', `the card has no skill ${unknown.join(', ')}`, {
          data: { unknown, skills: [...skills.keys()] },
        }),
      );
    Object.assign(mapping, request.capabilities);
  } else {
    for (const skill of card.skills) {
      const capability = capabilityOf(skill.id);
      if (capability && !Object.values(mapping).includes(capability)) mapping[skill.id] = capability;
    }
  }
  if (Object.keys(mapping).length === 0)
    return err(
      new ReachError(
        'NO_USABLE_SKILL',
        `card ${url}: no skill maps to a capability id ([a-z][a-z0-9_]{0,39}); pass "capabilities": {"<skill id>": "<capability>"}`,
        { data: { skills: [...skills.keys()] } },
      ),
    );
  const agentName = request.agent_name ?? agentNameOf(card.name);
  if (!agentName)
    return err(
      new ReachError(
        'VALIDATION_FAILED',
        `the card's name ${JSON.stringify(card.name)} is no agent name; pass "agent_name"`,
      ),
    );
  const host = await addressOf(callUrl.hostname);
  if (!host) return err(new ReachError('CARD_UNREACHABLE', `the host of ${a2a.url} does not resolve`));

  const capabilities: Declaration['capabilities'] = {};
  for (const [skillId, capability] of Object.entries(mapping)) {
    const skill = skills.get(skillId);
    capabilities[capability] = {
      description: (skill?.description || skill?.name || skillId).slice(0, 500),
      examples: (skill?.examples ?? []).filter((e) => e.length > 0 && e.length <= 200).slice(0, 10),
      tags: (skill?.tags ?? []).filter((t) => t.length > 0 && t.length <= 40).slice(0, 20),
      input: [],
      output: [],
      constraints: {},
      serves: [],
    };
  }
  const domain = request.domain ?? 'external';
  const priority = request.priority ?? 50;
  const idempotent = request.idempotent ?? false;
  // The version follows the card's bytes and the request: the same card registers the same declaration.
  const digest = createHash('sha256')
    .update(sha256)
    .update(JSON.stringify([mapping, agentName, domain, priority, idempotent]))
    .digest('hex');
  const version = `card-${digest.slice(0, 16)}`;
  const declaration: Declaration = {
    agent_name: agentName,
    version,
    // A changed card is a new version, and a later version needs a reason: the card's own digest.
    change_reason: `agent card changed (sha256 ${sha256.slice(0, 16)})`,
    description: card.description.slice(0, 500),
    domain,
    capabilities,
    priority,
    idempotent,
    substitutable: true,
  };
  const endpoint: Endpoint = {
    host,
    port: Number(callUrl.port || (callUrl.protocol === 'https:' ? 443 : 80)),
    scheme: callUrl.protocol === 'https:' ? 'https' : 'http',
    alpn: ['http/1.1'],
  };
  return ok({ declaration, endpoint, a2a, mapping });
}
