import type { CatalogCapability } from '../plan/catalog.js';
import { skillTerms } from './skill-tokens.js';

/** BM25 parameters (the usual defaults). */
const K1 = 1.2;
const B = 0.75;
/** A capability is picked only with at least this score (more than one rare term in common). */
export const MIN_SKILL_SCORE = 4.5;
/** ...and at least this share of the best score (built-ins included), so a strong match does not drag in weak ones. */
export const RELATIVE_SKILL_SCORE = 0.5;

/** One ranked capability. */
export interface SkillMatch {
  id: string;
  score: number;
}

interface Doc {
  id: string;
  length: number;
  tf: Map<string, number>;
}

/** A BM25 index over the catalog's skill text: id, description, tags and examples of each capability. */
export class SkillIndex {
  private readonly docs: Doc[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(catalog: readonly CatalogCapability[]) {
    this.docs = catalog.map((c) => {
      // The id and the tags are the author's own keywords: they count twice.
      const terms = skillTerms([c.id, c.id, c.description, ...c.tags, ...c.tags, ...c.examples].join(' \n '));
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return { id: c.id, length: terms.length, tf };
    });
    this.avgLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  /** Every capability with a positive score for `task`, best first (ties by id, so plans are stable). */
  rank(task: string): SkillMatch[] {
    const query = [...new Set(skillTerms(task))];
    const n = this.docs.length;
    const out: SkillMatch[] = [];
    for (const d of this.docs) {
      let score = 0;
      for (const t of query) {
        const f = d.tf.get(t);
        if (f === undefined) continue;
        const df = this.df.get(t)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * d.length) / this.avgLength));
      }
      if (score > 0) out.push({ id: d.id, score });
    }
    return out.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  }
}

const indexes = new WeakMap<readonly CatalogCapability[], SkillIndex>();

/** The index of a catalog, built once per catalog array (a discovery hands the same array to every plan). */
export function skillIndexOf(catalog: readonly CatalogCapability[]): SkillIndex {
  let index = indexes.get(catalog);
  if (index === undefined) {
    index = new SkillIndex(catalog);
    indexes.set(catalog, index);
  }
  return index;
}

/**
 * The capabilities (not built-in) whose skill text matches the task well enough: score at least
 * `MIN_SKILL_SCORE` and at least `RELATIVE_SKILL_SCORE` of the best; best first.
 */
export function matchSkills(task: string, catalog: readonly CatalogCapability[]): SkillMatch[] {
  const open = new Set(catalog.filter((c) => !c.builtin).map((c) => c.id));
  if (open.size === 0) return [];
  const ranked = skillIndexOf(catalog).rank(task);
  const best = ranked[0]?.score ?? 0;
  return ranked.filter(
    (m) => open.has(m.id) && m.score >= MIN_SKILL_SCORE && m.score >= best * RELATIVE_SKILL_SCORE,
  );
}
