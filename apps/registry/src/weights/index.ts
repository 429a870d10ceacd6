/** DNS weights: tiers and hysteresis, the leader's publication, every replica's table, and what the zone publishes. */
export {
  computeWeight,
  PublishedWeight,
  shouldRepublish,
  WEIGHT_HYSTERESIS,
  WEIGHT_TIERS,
  type WeightInputs,
  type WeightTier,
} from './compute-weight.js';
export { instanceSkydns, type SkydnsTarget, skydnsTargetOf } from './instance-skydns.js';
export {
  defaultWeightOf,
  guardedWeightOf,
  type SrvWeight,
  type WeightOf,
  weightOfFromSrvWeights,
  wireWeight,
} from './weight-of.js';
export { WeightPublisher, type WeightPublisherDeps } from './weight-publisher.js';
export { sourceRoster, type WeightRoster } from './weight-roster.js';
export { WeightTable } from './weight-table.js';
