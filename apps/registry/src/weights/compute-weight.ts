import { z } from 'zod';
import { SCORE } from '../routing/score.js';

/** SRV priorities (also SVCB SvcPriority) by tier: lower is preferred, so suspects are tried last. */
export const WEIGHT_TIERS = { healthy: 10, degraded: 20, suspect: 30 } as const;
export type WeightTier = keyof typeof WEIGHT_TIERS;

/** Hysteresis of the published weights so DNS answers do not flap. */
export const WEIGHT_HYSTERESIS = {
  /** Republish only when the weight moved by more than this share of the published one. */
  change: 0.2,
  /** success × load below this makes a healthy instance degraded ... */
  degradeBelow: 0.35,
  /** ... and a degraded one is healthy again only above this. */
  recoverAbove: 0.45,
  /** SRV weights are 1..scale. */
  scale: 1000,
} as const;

/** A weight as the leader stores it under `KEYS.weight(instanceId)`, bound to the instance's lease. */
export const PublishedWeight = z.object({
  priority: z.number().int().min(0).max(65_535),
  weight: z.number().int().min(1).max(65_535),
  tier: z.enum(['healthy', 'degraded', 'suspect']),
  success_rate: z.number(),
  load: z.number(),
  /** Wall-clock ISO time of publication, for display. */
  updated_at: z.string(),
});
export type PublishedWeight = z.infer<typeof PublishedWeight>;

/** The routing factors a DNS weight is computed from (see `Router.factorsOf`). */
export interface WeightInputs {
  state: string;
  success_rate: number;
  load: number;
  warmup: number;
  priority: number;
  /** The declaration-version preference factor (absent: 1). */
  version?: number;
}

/**
 * The warm-up factor as DNS shows it: rounded down to the floor times a power of two (0.1, 0.2, 0.4,
 * 0.8, then 1), so a new instance's weight moves 4 times over its ramp instead of about 13 times at
 * the 20 % hysteresis. Each move is a weight write and a zone patch: at 1,000 registrations/s a linear
 * ramp alone cost ~12,600 weight moves/s. Routing keeps the linear ramp.
 */
export function dnsWarmup(warmup: number): number {
  if (warmup >= 1) return 1;
  if (warmup <= SCORE.warmupFloor) return warmup;
  return SCORE.warmupFloor * 2 ** Math.floor(Math.log2(warmup / SCORE.warmupFloor));
}

/** The part of a weight that `shouldRepublish` compares: the tier with its SRV/SVCB priority, and the weight. */
export interface Weighed {
  priority: number;
  weight: number;
  tier: WeightTier;
}

/**
 * The weight DNS-only clients should see: the tier picks the SRV/SVCB priority (suspect last, degraded
 * second, with a band between entering and leaving "degraded"), and the SRV weight is the routing
 * score without match quality (warm-up in steps, `dnsWarmup`), scaled to 1..1000.
 */
export function weighInputs(
  inputs: WeightInputs,
  previous: Pick<PublishedWeight, 'tier'> | undefined,
): Weighed {
  const tier = tierOf(inputs, previous);
  const raw =
    WEIGHT_HYSTERESIS.scale *
    inputs.success_rate *
    inputs.load *
    dnsWarmup(inputs.warmup) *
    inputs.priority *
    (inputs.version ?? 1);
  return { priority: WEIGHT_TIERS[tier], weight: Math.min(65_535, Math.max(1, Math.round(raw))), tier };
}

/** The inputs a tier depends on: not the warm-up, priority or version, which move only the weight. */
export type TierInputs = Pick<WeightInputs, 'state' | 'success_rate' | 'load'>;

/**
 * The tier `inputs` put an instance in: suspect unless healthy, else degraded when success × load is
 * low, with a band between entering and leaving "degraded" (`previous` is the published tier).
 */
export function tierOf(inputs: TierInputs, previous: Pick<PublishedWeight, 'tier'> | undefined): WeightTier {
  const quality = inputs.success_rate * inputs.load;
  if (inputs.state !== 'healthy') return 'suspect';
  if (previous?.tier === 'degraded') return quality > WEIGHT_HYSTERESIS.recoverAbove ? 'healthy' : 'degraded';
  return quality < WEIGHT_HYSTERESIS.degradeBelow ? 'degraded' : 'healthy';
}

/**
 * The record the leader publishes for a weight. Apart from `weighInputs` because the leader's pass
 * weighs every live instance and publishes few: the ISO time alone cost ~0.5 µs per instance, a
 * tenth of a pass at 100,000 instances.
 */
export function publishedWeight(weighed: Weighed, inputs: WeightInputs, wallNow: number): PublishedWeight {
  return {
    priority: weighed.priority,
    weight: weighed.weight,
    tier: weighed.tier,
    success_rate: inputs.success_rate,
    load: inputs.load,
    updated_at: new Date(wallNow).toISOString(),
  };
}

/** `weighInputs`, published at `wallNow`. */
export function computeWeight(
  inputs: WeightInputs,
  previous: Pick<PublishedWeight, 'tier'> | undefined,
  wallNow: number,
): PublishedWeight {
  return publishedWeight(weighInputs(inputs, previous), inputs, wallNow);
}

/**
 * Whether `next` differs enough from what DNS shows now to be worth publishing: the published weight,
 * or, for an instance with none yet, `unpublished` (the zone's and SkyDNS's default for it).
 */
export function shouldRepublish(
  published: Pick<PublishedWeight, 'priority' | 'weight'> | undefined,
  next: Weighed,
): boolean {
  if (!published) return true;
  if (published.priority !== next.priority) return true;
  return Math.abs(next.weight - published.weight) > WEIGHT_HYSTERESIS.change * published.weight;
}
