import type { CatalogEntry } from '@agent-reach/sdk/protocol';
import { MAX_NODES } from '../plan/index.js';

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
  catalog: readonly CatalogEntry[],
  available: readonly string[] | undefined,
  task: string,
): PromptMessage[] {
  const table = catalog.map((c) => `- ${c.id}: ${c.description}`).join('\n');
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
    '4. implementation is ONLY for deliverables that are runnable code, configuration or interface/API changes.',
    '   Plans, proposals, event plans, copy, reports and articles are writing.',
    '   (implementation 只用于交付可运行代码/配置/接口改动；写方案、策划、文案、报告一律 writing。)',
    '5. Answer with one JSON object and nothing else, in this shape:',
    '{"intent":"≤30 chars","nodes":[{"id":"n1","capability":"research","depends_on":[],"parallel_group":"g1",' +
      '"purpose":"one sentence"}],"final_node":"n4","reasoning":"why these layers"}',
  ].join('\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: task },
  ];
}
