/**
 * The seed's measured figures (agent-discovery-dag-design.txt, section 0 and 5, 2026-10-23 on 9400f),
 * printed beside ours by `reach verify`.
 */
export const SEED_FIGURES = {
  V1: '7/7 role_srv, 0 generic fallbacks, index 149.04 ms',
  V2: 'srv_queries 56, card_fetches 48, card_cache_hits 57, card_failures 0, health_probes 80',
  V3: 'node_attempt_failed → node_retry → another candidate succeeds (or the node degrades, others go on)',
  V4: '{0,[n1,n2],parallel} → {1,[n3,n4],parallel} → {2,[n5],serial} → {3,[n6],serial}',
  V5: 'trace ed320e1a6e93: 6 nodes, 45 events, full plan, node_input in full',
  V6: '设计一个用户下线接口 → implementation; 设计一份生日派对策划 → writing',
} as const;

/** The seed's two V6 tasks and the capability each must reach. */
export const V6_TASKS = [
  { task: '设计一个用户下线接口', must: 'implementation', mustNot: null },
  { task: '设计一份生日派对策划', must: 'writing', mustNot: 'implementation' },
] as const;

/** The seed's V4/V5 task (section 3.8). */
export const SEED_TASK = '设计一个家庭局域网安全智能体发现系统，分析风险、查找证据并给出实现和验收方案';
