import { z } from 'zod';
import { CapabilityId } from './catalog.js';

/** An agent name: a DNS host label without underscores, since instance labels derive from it. */
export const AgentName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,46}[a-z0-9]$/, 'agent names are DNS host labels: [a-z][a-z0-9-]*, 2-48 chars');

/**
 * A declaration version: immutable once registered (other content under it is refused), so every
 * change gets a new one.
 */
export const DeclarationVersion = z
  .string()
  .regex(/^[0-9A-Za-z][0-9A-Za-z.+-]{0,31}$/, 'a version is 1-32 of [0-9A-Za-z.+-], starting alphanumeric');

/** Limits an operation declares; routing filters callers' needs against them (seed article 3.3). */
export const OperationConstraints = z
  .object({
    /** Largest input the operation accepts, in characters (the seed article's `max_tokens`). */
    max_tokens: z.number().int().positive().optional(),
    /** Typical answer time the agent promises, in seconds. */
    response_time_sec: z.number().positive().max(86_400).optional(),
    /** Output formats the operation can produce, e.g. `json`, `csv`, `markdown`. */
    output_formats: z.array(z.string().min(1).max(40)).max(20).optional(),
  })
  .strict();
export type OperationConstraints = z.infer<typeof OperationConstraints>;

/** One operation an agent offers (the seed's `capabilities.<op>` entry, extended). */
export const Operation = z
  .object({
    /** What the operation does; planners match tasks against it, so say it in the words users use. */
    description: z
      .string()
      .max(500)
      .optional()
      .describe('What the operation does, in the words users use: planners match tasks against it.'),
    /** Keywords planners match tasks against (A2A skill tags), e.g. `word count`, `统计`. */
    tags: z
      .array(z.string().min(1).max(40))
      .max(20)
      .optional()
      .describe('Keywords planners match tasks against (A2A skill tags), any language.'),
    /** Sample requests this operation answers (A2A skill examples), in any language. */
    examples: z
      .array(z.string().min(1).max(200))
      .max(10)
      .optional()
      .describe('Sample requests this operation answers (A2A skill examples), any language.'),
    /** Input summary: the field names the operation reads. */
    input: z.array(z.string().min(1).max(80)).max(50).default([]),
    /** Output summary: the field names the operation returns. */
    output: z.array(z.string().min(1).max(80)).max(50).default([]),
    constraints: OperationConstraints.default({}),
    /** Catalog capability ids this operation serves (e.g. `writing`), used by the orchestrator. */
    serves: z
      .array(CapabilityId)
      .max(20)
      .default([])
      .describe('Built-in or configured catalog capabilities this operation serves, e.g. writing.'),
    /** Overrides the declaration-wide `idempotent` for this operation. */
    idempotent: z.boolean().optional(),
  })
  .strict();
export type Operation = z.infer<typeof Operation>;

/** A capability declaration file: what an agent can do, under which limits (seed article 3.3). */
export const Declaration = z
  .object({
    agent_name: AgentName,
    /** Declaration version; every change gets a new one (the "Git of declarations"). */
    version: DeclarationVersion.default('1').describe(
      'Immutable once registered: other content under a recorded version is refused (409), so a change gets a new version and a change_reason.',
    ),
    change_reason: z
      .string()
      .max(500)
      .optional()
      .describe(
        'Why this version differs from the previous one; required for every version after the first.',
      ),
    description: z.string().max(500).optional(),
    domain: z.string().regex(/^[a-z][a-z0-9_.-]{0,62}$/, 'domain is a lower-case identifier'),
    capabilities: z
      .record(CapabilityId, Operation)
      .refine((ops) => Object.keys(ops).length > 0, 'declare at least one capability')
      .refine((ops) => Object.keys(ops).length <= 32, 'at most 32 capabilities per agent'),
    /** A routing weight from 0 to 100, never a veto (seed article 6.2). */
    priority: z.number().int().min(0).max(100).default(50),
    idempotent: z.boolean().default(false),
    /** Whether other agents may serve the same capability at the same priority without a conflict. */
    substitutable: z.boolean().default(false),
  })
  .strict();
export type Declaration = z.infer<typeof Declaration>;
export type DeclarationInput = z.input<typeof Declaration>;

// Per declaration object (declarations are not changed after parsing; the registry shares one
// object among a fleet's replicas and asks for their names several times per registration).
const published = new WeakMap<Declaration, readonly string[]>();

/** The DNS capability names an instance is published under, sorted: its operations and what they serve (one frozen array per declaration). */
export function publishedCapabilities(declaration: Declaration): readonly string[] {
  let names = published.get(declaration);
  if (names === undefined) {
    const set = new Set<string>();
    for (const [operation, spec] of Object.entries(declaration.capabilities)) {
      set.add(operation);
      for (const capability of spec.serves) set.add(capability);
    }
    names = Object.freeze([...set].sort());
    published.set(declaration, names);
  }
  return names;
}

/** Whether an operation may be retried elsewhere after its ack. */
export function isOperationIdempotent(declaration: Declaration, operation: string): boolean {
  return declaration.capabilities[operation]?.idempotent ?? declaration.idempotent;
}

/**
 * What a published capability is, in words: the operation's own description, else the first
 * description of an operation serving it, else the agent's.
 */
export function capabilityDescription(declaration: Declaration, capability: string): string | undefined {
  const own = declaration.capabilities[capability]?.description;
  if (own) return own;
  for (const spec of Object.values(declaration.capabilities))
    if (spec.description && spec.serves.includes(capability)) return spec.description;
  return declaration.description || undefined;
}
