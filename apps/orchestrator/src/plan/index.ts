/** Plan schemas, the seven normalisation rules, layering and the fallback plan (seed 2.6, 3.3). */
export {
  type CatalogCapability,
  catalogFromEntries,
  isBuiltinCapability,
  isCodingCapability,
} from './catalog.js';
export { FALLBACK_ORDER, fallbackPlan } from './fallback-plan.js';
export { breakCycles, isValidDag, LEVELS_GUARD, levels, stronglyConnected } from './graph.js';
export { normalizePlan } from './normalize.js';
export {
  FINAL_CAPABILITY,
  MAX_NODES,
  NodeId,
  type NormalizeContext,
  type NormalizedPlan,
  Plan,
  PlanNode,
  RawPlan,
  RawPlanNode,
} from './schema.js';
