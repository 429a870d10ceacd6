import { z } from 'zod';

/** A capability or operation id: it becomes a DNS label `_<id>`, so it is short and lower-case. */
export const CapabilityId = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,39}$/, 'capability ids match [a-z][a-z0-9_]{0,39}');
export type CapabilityId = z.infer<typeof CapabilityId>;

/** The built-in capability catalog (seed design doc 2.2); config may extend it. */
export const DEFAULT_CATALOG = [
  'planning',
  'research',
  'security_review',
  'validation',
  'implementation',
  'writing',
  'synthesis',
] as const satisfies readonly CapabilityId[];

export type CatalogCapability = (typeof DEFAULT_CATALOG)[number];

/** One catalog entry as shown to planners and consoles. */
export const CatalogEntry = z.object({
  id: CapabilityId,
  description: z.string().min(1).max(400),
});
export type CatalogEntry = z.infer<typeof CatalogEntry>;

/** Descriptions of the built-in catalog, used in planner prompts and the console. */
export const DEFAULT_CATALOG_ENTRIES: CatalogEntry[] = [
  { id: 'planning', description: 'Break a goal into steps, milestones and decisions.' },
  { id: 'research', description: 'Collect facts, evidence, prior art and references.' },
  { id: 'security_review', description: 'Find risks, threats and security weaknesses.' },
  { id: 'validation', description: 'Define and check acceptance criteria and tests.' },
  {
    id: 'implementation',
    description: 'Deliver runnable code, configuration or interface changes. Only for code.',
  },
  { id: 'writing', description: 'Write plans, proposals, copy, reports and other prose deliverables.' },
  { id: 'synthesis', description: 'Merge the other outputs into one final answer.' },
];
