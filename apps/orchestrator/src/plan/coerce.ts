import { NodeId } from './schema.js';

/** A node after type coercion, before any of the seven rules. */
export interface CandidateNode {
  id: string;
  capability: string;
  /** Dependencies as the model wrote them; resolved later. */
  depends_on: string[];
  parallel_group: string;
  purpose: string;
}

/** The model output coerced into plain types, or null when it is not a plan at all (rule 1). */
export interface CandidatePlan {
  intent: string;
  nodes: CandidateNode[];
  finalNode: string | null;
  reasoning: string;
  /** The model's ids (and valid renamings) mapped to the ids used here. */
  aliases: Map<string, string>;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const asText = (v: unknown): string | null =>
  typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;

function asDeps(v: unknown): string[] {
  const list = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
  return list.map(asText).filter((d): d is string => d !== null && d !== '');
}

/**
 * Coerces unknown model output into candidate nodes; returns null when it is not an object with a
 * non-empty `nodes` array (rule 1). Ids that are missing, malformed or repeated get fresh ones.
 */
export function coercePlan(raw: unknown, warnings: string[]): CandidatePlan | null {
  if (!isRecord(raw) || !Array.isArray(raw.nodes) || raw.nodes.length === 0) return null;
  const rawNodes: unknown[] = raw.nodes;
  const claimed = new Set(rawNodes.map((n) => (isRecord(n) ? asText(n.id) : null)).filter((x) => x !== null));
  const aliases = new Map<string, string>();
  const used = new Set<string>();
  let fresh = 0;
  const freshId = (): string => {
    do fresh += 1;
    while (claimed.has(`n${fresh}`) || used.has(`n${fresh}`));
    return `n${fresh}`;
  };

  const nodes: CandidateNode[] = [];
  rawNodes.forEach((n, i) => {
    if (!isRecord(n)) {
      warnings.push(`node #${i + 1} is not an object — dropped`);
      return;
    }
    const given = asText(n.id);
    let id = given ?? '';
    if (!NodeId.safeParse(id).success || used.has(id)) {
      const why =
        given === null || given === '' ? 'has no id' : used.has(id) ? 'repeats an id' : 'has a bad id';
      id = freshId();
      warnings.push(`node #${i + 1} ${why} (${JSON.stringify(given)}) — renamed ${id}`);
    } else {
      aliases.set(id, id);
    }
    // A malformed id is still what other nodes' depends_on use, so keep it resolvable once.
    if (given !== null && given !== '' && !aliases.has(given)) aliases.set(given, id);
    used.add(id);
    nodes.push({
      id,
      capability: (asText(n.capability) ?? '').toLowerCase(),
      depends_on: asDeps(n.depends_on),
      parallel_group: (asText(n.parallel_group) ?? '').slice(0, 40),
      purpose: (asText(n.purpose) ?? '').slice(0, 400),
    });
  });
  return {
    intent: asText(raw.intent) ?? '',
    nodes,
    finalNode: asText(raw.final_node),
    reasoning: (asText(raw.reasoning) ?? '').slice(0, 2000),
    aliases,
  };
}
