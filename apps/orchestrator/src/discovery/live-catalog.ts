import {
  type AgentCard,
  type CardSkill,
  type CatalogEntry,
  cardExtension,
  cardSkills,
} from '@agent-reach/sdk/protocol';
import { type CatalogCapability, isBuiltinCapability, isCodingCapability } from '../plan/catalog.js';
import type { Candidate, CatalogText } from './discovery-view.js';

/** What the live catalog starts from and how long it remembers a capability that left DNS. */
export interface LiveCatalogOptions {
  /** The capabilities always in the catalog (the built-in seven plus config's `catalog:`). */
  ids: readonly string[];
  /** Descriptions of configured capabilities; they win over cards' (config's `catalog:` is the override). */
  entries: readonly CatalogEntry[];
  /**
   * How long a capability that left the DNS index stays in the catalog (planned as an unavailable
   * node, shown as gone) before it is forgotten. @default 600000
   */
  retentionMs?: number;
}

// Bounds on text taken from a card: a card may hold up to the card size limit of prose.
const MAX_DESCRIPTION = 400;
const MAX_TAGS = 20;
const MAX_EXAMPLES = 10;
const MAX_ITEM = 200;

/**
 * The capability catalog as DNS has it now: the configured entries plus every capability the DNS
 * index lists, each described by its agents' card skills. A capability that leaves the index is kept
 * for `retentionMs` (so a task that needs it shows it unavailable) and then forgotten.
 */
export class LiveCatalog {
  private readonly configured: readonly string[];
  private readonly entries: ReadonlyMap<string, CatalogEntry>;
  private readonly retentionMs: number;
  /** Capabilities the index listed, with when they were last listed (monotonic ms). */
  private readonly lastListed = new Map<string, number>();
  /** The last text each capability was described with, for when no agent serves it. */
  private readonly lastText = new Map<string, CatalogText>();
  private listedNow: ReadonlySet<string> = new Set();

  constructor(options: LiveCatalogOptions) {
    this.configured = [...new Set(options.ids)];
    this.entries = new Map(options.entries.map((e) => [e.id, e]));
    this.retentionMs = options.retentionMs ?? 600_000;
  }

  /** Records the capabilities the index lists at `now`. */
  listed(ids: readonly string[], now: number): void {
    this.listedNow = new Set(ids);
    for (const id of ids) this.lastListed.set(id, now);
  }

  /** Whether the last index read listed `id`. */
  inIndex(id: string): boolean {
    return this.listedNow.has(id);
  }

  /** The capabilities to resolve at `now`: the configured ones, then the listed ones in id order. */
  ids(now: number): string[] {
    for (const [id, at] of this.lastListed) {
      if (now - at > this.retentionMs && !this.listedNow.has(id)) {
        this.lastListed.delete(id);
        this.lastText.delete(id);
      }
    }
    const configured = new Set(this.configured);
    const extra = [...this.lastListed.keys()].filter((id) => !configured.has(id)).sort();
    return [...this.configured, ...extra];
  }

  /** A capability's text from its candidates' card skills, the configured entry winning on description. */
  describe(capability: string, candidates: readonly Candidate[]): CatalogText {
    const fromCards = skillText(capability, candidates);
    if (fromCards !== null) this.lastText.set(capability, fromCards);
    const cards = fromCards ?? this.lastText.get(capability) ?? null;
    const entry = this.entries.get(capability);
    if (entry !== undefined) {
      return {
        description: entry.description,
        described_by: isBuiltinCapability(capability) ? 'builtin' : 'config',
        tags: cards?.tags ?? [],
        examples: cards?.examples ?? [],
      };
    }
    return (
      cards ?? { description: capability.replace(/_/g, ' '), described_by: 'none', tags: [], examples: [] }
    );
  }

  private lastPlannable: { key: string; catalog: CatalogCapability[] } | undefined;

  /**
   * The plannable catalog of a discovery; the same array while the text is unchanged, so the
   * planner's ranking index (built once per catalog array) is reused across runs.
   */
  plannableOf(
    capabilities: Readonly<Record<string, CatalogText & { capability: string }>>,
  ): CatalogCapability[] {
    const key = Object.values(capabilities)
      .map((c) =>
        [c.capability, c.description, c.tags.join('\u0001'), c.examples.join('\u0001')].join('\u0002'),
      )
      .join('\u0003');
    if (this.lastPlannable?.key !== key)
      this.lastPlannable = { key, catalog: LiveCatalog.plannable(capabilities) };
    return this.lastPlannable.catalog;
  }

  /** The plannable catalog of one discovery. */
  static plannable(
    capabilities: Readonly<Record<string, CatalogText & { capability: string }>>,
  ): CatalogCapability[] {
    return Object.values(capabilities).map((c) => ({
      id: c.capability,
      description: c.description,
      tags: c.tags,
      examples: c.examples,
      builtin: isBuiltinCapability(c.capability),
      coding: isCodingCapability(c.capability, c.tags),
    }));
  }
}

/** A cached card's skills and domain are read once, not on every discovery (both are schema parses). */
const skillsByCard = new WeakMap<AgentCard, { domain: string | undefined; skills: CardSkill[] }>();

function skillsOf(card: AgentCard): { domain: string | undefined; skills: CardSkill[] } {
  let read = skillsByCard.get(card);
  if (read === undefined) {
    read = { domain: cardExtension(card)?.domain, skills: cardSkills(card) };
    skillsByCard.set(card, read);
  }
  return read;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The text of `capability` in its candidates' cards: the skills with that id (or serving it, by tag),
 * the first non-empty description and every distinct tag and example, bounded. Null when no card says.
 */
function skillText(capability: string, candidates: readonly Candidate[]): CatalogText | null {
  let description = '';
  const tags = new Set<string>();
  const examples = new Set<string>();
  let found = false;
  for (const c of candidates) {
    const { domain, skills } = skillsOf(c.card);
    const own = skills.filter((s) => s.id === capability);
    for (const s of own.length > 0 ? own : skills.filter((x) => x.tags.includes(capability))) {
      found = true;
      if (description === '' && s.description.trim() !== '') description = s.description.trim();
      for (const t of s.tags)
        if (t !== capability && t !== domain && tags.size < MAX_TAGS) tags.add(clip(t, MAX_ITEM));
      for (const e of s.examples) if (examples.size < MAX_EXAMPLES) examples.add(clip(e, MAX_ITEM));
    }
  }
  if (!found) return null;
  return {
    description: clip(description || capability.replace(/_/g, ' '), MAX_DESCRIPTION),
    described_by: description ? 'card' : 'none',
    tags: [...tags],
    examples: [...examples],
  };
}
