import { z } from 'zod';

/** Most nodes a plan may hold; more costs plan quality, latency and context budget (seed 2.6). */
export const MAX_NODES = 6;

/** The capability every plan ends in. */
export const FINAL_CAPABILITY = 'synthesis';

/** A node id as it appears in events, traces and `depends_on`. */
export const NodeId = z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, 'node ids match [A-Za-z0-9_.-]{1,40}');

/** One node of the model's plan, as the prompt asks for it (the normaliser still trusts none of it). */
export const RawPlanNode = z.object({
  id: z.string(),
  capability: z.string(),
  depends_on: z.array(z.string()).default([]),
  parallel_group: z.string().optional(),
  purpose: z.string().default(''),
});
export type RawPlanNode = z.infer<typeof RawPlanNode>;

/** The model's plan as the prompt asks for it (seed 2.6). */
export const RawPlan = z.object({
  intent: z.string().default(''),
  nodes: z.array(RawPlanNode),
  final_node: z.string().optional(),
  reasoning: z.string().default(''),
});
export type RawPlan = z.infer<typeof RawPlan>;

/** One node of a normalised plan: known capability, legal dependencies, no cycles. */
export const PlanNode = z.object({
  id: NodeId,
  capability: z.string().min(1),
  depends_on: z.array(NodeId),
  parallel_group: z.string().max(40),
  purpose: z.string().max(400),
});
export type PlanNode = z.infer<typeof PlanNode>;

/** A normalised plan: a DAG of at most MAX_NODES nodes whose last node is the synthesis `final_node`. */
export const Plan = z.object({
  intent: z.string().max(60),
  nodes: z.array(PlanNode).min(1).max(MAX_NODES),
  final_node: NodeId,
  reasoning: z.string().max(2000),
});
export type Plan = z.infer<typeof Plan>;

/** What the normaliser hands back: the plan, what it changed, and whether it fell back. */
export interface NormalizedPlan {
  plan: Plan;
  warnings: string[];
  /** True when the model output was unusable and the fallback plan was used. */
  degraded: boolean;
}

/** What the normaliser needs to know besides the model output. */
export interface NormalizeContext {
  /** Capability ids the plan may use (synthesis is always allowed). */
  catalog: readonly string[];
  /** Capabilities the index found live right now; others are kept but warned about. */
  available?: readonly string[];
  /** The user's task in plain words. */
  task: string;
  /** Capabilities that deliver code (seed 1.3, generalised). @default ['implementation'] */
  coding?: readonly string[];
}
