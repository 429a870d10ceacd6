import { type CatalogCapability, MAX_NODES } from '../plan/index.js';

/** A chat message as the OpenAI chat completions API takes it. */
export interface PromptMessage {
  role: 'system' | 'user';
  content: string;
}

/**
 * The planner prompt (seed 3.3): the catalog, the capabilities live right now, the output shape and
 * the implementation-vs-writing rule (seed 1.3). Asks for JSON only.
 */
export function planPrompt(
  catalog: readonly CatalogCapability[],
  available: readonly string[] | undefined,
  task: string,
): PromptMessage[] {
  const table = catalog.map(catalogLine).join('\n');
  const live =
    available === undefined ? 'unknown (assume all)' : available.length ? available.join(', ') : 'none';
  const system = [
    'You are the planner of a multi-agent system. Split the task into a small DAG of capability nodes.',
    '',
    'Capabilities (use only these ids):',
    table,
    '',
    `Capabilities with a live agent right now: ${live}. Prefer them.`,
    '',
    'Rules:',
    `1. At most ${MAX_NODES} nodes; each capability at most once.`,
    '2. depends_on lists ids of nodes that must finish first; nodes without dependencies run in parallel,',
    '   so put independent work (research, planning) first and side by side.',
    '3. The last node is synthesis; it depends on every other node and its id is final_node.',
    `4. ${codingNames(catalog)} ONLY for deliverables that are runnable code, configuration or interface/API changes.`,
    '   Plans, proposals, event plans, copy, reports and articles are writing.',
    '   (implementation 只用于交付可运行代码/配置/接口改动；写方案、策划、文案、报告一律 writing。)',
    '5. A capability that does exactly what the task asks (its description, tags or examples match) is the',
    '   deliverable node; plan it even when it has no live agent right now (the run reports it missing).',
    '6. Answer with one JSON object and nothing else, in this shape:',
    '{"intent":"≤30 chars","nodes":[{"id":"n1","capability":"research","depends_on":[],"parallel_group":"g1",' +
      '"purpose":"one sentence"}],"final_node":"n4","reasoning":"why these layers"}',
  ].join('\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: task },
  ];
}

/** One catalog line: id, description, and the card skills' tags and examples when there are any. */
function catalogLine(c: CatalogCapability): string {
  const parts = [`- ${c.id}: ${c.description.replace(/\s+/g, ' ').slice(0, 300)}`];
  if (c.tags.length) parts.push(`  tags: ${c.tags.slice(0, 10).join(', ')}`);
  if (c.examples.length)
    parts.push(
      `  e.g. ${c.examples
        .slice(0, 3)
        .map((e) => JSON.stringify(e.slice(0, 120)))
        .join('; ')}`,
    );
  return parts.join('\n');
}

/** The coding capabilities named in rule 4 ("implementation is", or "implementation and x are"). */
function codingNames(catalog: readonly CatalogCapability[]): string {
  const ids = catalog.filter((c) => c.coding).map((c) => c.id);
  if (ids.length === 0) return 'implementation is';
  return ids.length === 1 ? `${ids[0]} is` : `${ids.join(', ')} are`;
}
