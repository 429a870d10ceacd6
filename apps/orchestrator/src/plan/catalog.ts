import { type CatalogEntry, DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';

/** One capability a plan may use, with the text planners match tasks against. */
export interface CatalogCapability {
  id: string;
  description: string;
  /** Keywords (card skill tags, minus the agent's domain). */
  tags: readonly string[];
  /** Sample requests (card skill examples). */
  examples: readonly string[];
  /** One of the built-in seven (planned by the seed's rules, not by skill text alone). */
  builtin: boolean;
  /** Delivers runnable code: a task with no coding signal never gets it (seed 1.3, generalised). */
  coding: boolean;
}

/** Tags that mark a capability as one that delivers code. */
const CODING_TAGS: ReadonlySet<string> = new Set([
  'implementation',
  'code',
  'coding',
  'programming',
  'codegen',
  '编程',
  '代码',
]);

const BUILTIN: ReadonlySet<string> = new Set(DEFAULT_CATALOG);

/** Whether a capability delivers code: `implementation`, or one whose tags say code. */
export function isCodingCapability(id: string, tags: readonly string[]): boolean {
  return id === 'implementation' || tags.some((t) => CODING_TAGS.has(t.toLowerCase()));
}

/** Whether `id` is one of the built-in seven. */
export function isBuiltinCapability(id: string): boolean {
  return BUILTIN.has(id);
}

/** A catalog from description-only entries (the built-in seven and config's `catalog:`). */
export function catalogFromEntries(entries: readonly CatalogEntry[]): CatalogCapability[] {
  return entries.map((e) => ({
    id: e.id,
    description: e.description,
    tags: [],
    examples: [],
    builtin: isBuiltinCapability(e.id),
    coding: isCodingCapability(e.id, []),
  }));
}
