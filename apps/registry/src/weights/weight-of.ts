import type { SrvWeights as SkydnsWeights } from '../skydns/index.js';
import type { InstanceRecord } from '../store/records.js';

/** SRV priority/weight (and SVCB SvcPriority) for one instance, optionally per capability. */
export interface SrvWeight {
  priority: number;
  weight: number;
}

/**
 * Chooses an instance's SRV priority and weight; `capability` is undefined for the generic
 * `_agent._tcp` records. A routing component may replace it to publish dynamic weights.
 */
export type WeightOf = (record: InstanceRecord, capability?: string) => SrvWeight;

/** Priority 10 for everyone; weight from the declaration's priority (0-100), at least 1. */
export const defaultWeightOf: WeightOf = (record) => ({
  priority: 10,
  weight: Math.max(1, record.declaration.priority),
});

const clamp = (value: number, min: number, max: number, fallback: number): number =>
  Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : fallback;

/** A weight fit for the wire: SRV fields are u16; an SVCB priority of 0 would mean AliasMode, so it is at least 1. */
export function wireWeight(raw: SrvWeight): { srvPriority: number; svcPriority: number; weight: number } {
  const srvPriority = clamp(raw.priority, 0, 65_535, 10);
  return { srvPriority, svcPriority: Math.max(1, srvPriority), weight: clamp(raw.weight, 0, 65_535, 1) };
}

/**
 * A WeightOf that reads the same per-instance overrides the SkyDNS projection takes (`SrvWeights`),
 * so the responder and CoreDNS publish one priority and weight for each record.
 */
export function weightOfFromSrvWeights(lookup: (instanceId: string) => SkydnsWeights | undefined): WeightOf {
  return (record, capability) => {
    const base = defaultWeightOf(record, capability);
    const weights = lookup(record.instance_id);
    if (weights === undefined) return base;
    // The SkyDNS projection files the generic records under capability `agent`.
    const override = weights.byCapability?.[capability ?? 'agent'];
    return {
      priority: override?.priority ?? weights.priority ?? base.priority,
      weight: Math.max(1, override?.weight ?? weights.weight ?? base.weight),
    };
  };
}

/** `weightOf`, falling back to the default for a record it fails on: one bad weight must not empty the zone. */
export function guardedWeightOf(weightOf: WeightOf, onError: (error: unknown) => void = () => {}): WeightOf {
  return (record, capability) => {
    try {
      return weightOf(record, capability);
    } catch (error) {
      onError(error);
      return defaultWeightOf(record, capability);
    }
  };
}
