import { z } from 'zod';
import { A2ATarget } from './card.js';
import { CapabilityId } from './catalog.js';
import { Endpoint, InstanceState } from './registration.js';

/** A caller's need (seed article 2.2): "summarize, input up to 5,000 chars, answer within 2 s". */
export const RouteQuery = z
  .object({
    domain: z.string().max(63).optional(),
    /** The operation or catalog capability wanted, e.g. `summarize` or `writing`. */
    operation: CapabilityId,
    constraints: z
      .object({
        input_size: z.number().int().min(0).optional(),
        max_latency_sec: z.number().positive().optional(),
        output_format: z.string().min(1).max(40).optional(),
      })
      .strict()
      .default({}),
    max_candidates: z.number().int().min(1).max(20).default(3),
    exclude: z.array(z.string()).max(100).default([]),
  })
  .strict();
export type RouteQuery = z.infer<typeof RouteQuery>;
export type RouteQueryInput = z.input<typeof RouteQuery>;

/** Why a candidate scored what it did; the factors multiply into `score`. */
export const ScoreBreakdown = z.object({
  match: z.number(),
  health: z.number(),
  success_rate: z.number(),
  load: z.number(),
  warmup: z.number(),
  priority: z.number(),
  /**
   * 1 for an instance of its agent's preferred declaration version (the newest verified one that is
   * live, else the newest live one), lower for its other versions; absent counts as 1.
   */
  version: z.number().optional(),
});
export type ScoreBreakdown = z.infer<typeof ScoreBreakdown>;

/** One ranked target. */
export const RouteCandidate = z.object({
  instance_id: z.string(),
  agent_name: z.string(),
  operation: z.string(),
  endpoint: Endpoint,
  card_url: z.string(),
  /** The A2A interface to call, for agents not built with the SDK (absent: the SDK agent's JSON-RPC path). */
  a2a: A2ATarget.optional(),
  idempotent: z.boolean(),
  declaration_version: z.string(),
  state: InstanceState,
  score: z.number(),
  breakdown: ScoreBreakdown,
});
export type RouteCandidate = z.infer<typeof RouteCandidate>;

/** `POST /v1/route` answer. */
export const RouteResponse = z.object({
  candidates: z.array(RouteCandidate),
  conflict: z.object({ agents: z.array(z.string()), capability: z.string() }).nullable(),
  cached: z.boolean(),
});
export type RouteResponse = z.infer<typeof RouteResponse>;

/** How a call ended, as the caller saw it (seed article 1.2, 2.3, 5.2). */
export const FailureClass = z.enum([
  'connect',
  'ack_timeout',
  'execution_timeout',
  'http_5xx',
  'overloaded',
  'stream_broken',
  'agent_error',
  'cancelled',
]);
export type FailureClass = z.infer<typeof FailureClass>;

/** One call's outcome, reported by callers in batches to `POST /v1/outcomes`. */
export const Outcome = z
  .object({
    instance_id: z.string().min(1).max(80),
    request_id: z.string().min(1).max(128),
    operation: z.string().max(40).optional(),
    ok: z.boolean(),
    failure: FailureClass.optional(),
    latency_ms: z.number().min(0).max(86_400_000),
    attempt: z.number().int().min(1).max(100).default(1),
    fallback: z.boolean().default(false),
    /** True on the attempt that ended the call (its result was kept, or nothing more was tried). */
    final: z.boolean().optional(),
  })
  .strict()
  .refine((o) => o.ok === (o.failure === undefined), 'failure is set exactly when ok is false');
export type Outcome = z.infer<typeof Outcome>;

/** `POST /v1/outcomes` body. */
export const OutcomeBatch = z.object({ outcomes: z.array(Outcome).min(1).max(1000) }).strict();
export type OutcomeBatch = z.infer<typeof OutcomeBatch>;

/** What the conflicting declarations have in common: the operation and the constraint ranges both accept. */
export const ConflictOverlap = z.object({
  operation: z.string(),
  /** Output formats every declaring agent accepts; null when none of them declares formats. */
  output_formats: z.array(z.string()).nullable(),
  /** The largest input all of them accept; null when none declares a limit. */
  max_tokens: z.number().nullable(),
});
export type ConflictOverlap = z.infer<typeof ConflictOverlap>;

/** A conflict between declarations (seed article 5.2). */
export const ConflictView = z.object({
  capability: z.string(),
  domain: z.string(),
  agents: z.array(z.string()),
  priority: z.number(),
  /** Wall-clock ISO time the conflict was first seen, for display. */
  since: z.string(),
  overlap: ConflictOverlap.optional(),
  /** The live instances of the conflicting agents. */
  instances: z.array(z.string()).optional(),
});
export type ConflictView = z.infer<typeof ConflictView>;

/** The daily conflict report (seed article 5.2): every conflict seen during one UTC day. */
export const DailyConflictReport = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  generated_at: z.string(),
  conflicts: z.array(ConflictView),
});
export type DailyConflictReport = z.infer<typeof DailyConflictReport>;

/** One instance's routing figures over its outcome window. */
export const InstanceRoutingStats = z.object({
  instance_id: z.string(),
  agent_name: z.string(),
  state: InstanceState,
  /** Outcomes in the window (at most 100). */
  window: z.number().int(),
  failures: z.number().int(),
  /** Beta-prior success rate routing uses. */
  success_rate: z.number(),
  latency_ms: z.object({ p50: z.number(), p95: z.number(), mean: z.number() }).nullable(),
});
export type InstanceRoutingStats = z.infer<typeof InstanceRoutingStats>;

/** `GET /v1/routing/stats`: the seed article's three indicators (6.3) plus per-instance figures. */
export const RoutingStats = z.object({
  routes: z.object({ total: z.number().int(), cached: z.number().int(), cache_hit_rate: z.number() }),
  calls: z.object({
    total: z.number().int(),
    /** Share of calls the first candidate served. */
    hit_rate: z.number(),
    /** Share of calls that needed a fallback. */
    fallback_rate: z.number(),
    failed: z.number().int(),
    /** Retries per call: count of calls by number of retries (`"0"`, `"1"`, ..., `"5+"`). */
    retries: z.record(z.string(), z.number().int()),
  }),
  instances: z.array(InstanceRoutingStats),
});
export type RoutingStats = z.infer<typeof RoutingStats>;
