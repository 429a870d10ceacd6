import type { RawPlan } from './schema.js';

/** The fixed order the fallback plan runs in (seed 3.3). */
export const FALLBACK_ORDER = [
  'planning',
  'research',
  'security_review',
  'implementation',
  'synthesis',
] as const;

const PURPOSES: Record<(typeof FALLBACK_ORDER)[number], string> = {
  planning: '拆解任务，列出步骤与关键决定',
  research: '收集与任务相关的事实与依据',
  security_review: '找出风险与安全隐患',
  // Neutral on purpose: the task's own words decide implementation vs writing when normalised.
  implementation: '交付任务要求的主体产物',
  synthesis: '合并以上输出，给出最终答案',
};

/**
 * The plan used when the model's output is unusable: a fixed chain so the run still works (seed 3.3).
 * It is returned raw; `normalizePlan` still filters it by catalog and applies the writing rule.
 */
export function fallbackPlan(task: string): RawPlan {
  const nodes = FALLBACK_ORDER.map((capability, i) => ({
    id: `n${i + 1}`,
    capability,
    depends_on: i === 0 ? [] : [`n${i}`],
    parallel_group: `g${i + 1}`,
    purpose: PURPOSES[capability],
  }));
  return {
    intent: task.trim().slice(0, 30),
    nodes,
    final_node: `n${nodes.length}`,
    reasoning: 'fallback plan: fixed order because the planner output was unusable',
  };
}
