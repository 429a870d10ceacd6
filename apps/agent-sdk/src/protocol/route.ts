import { z } from 'zod';
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
});
export type ScoreBreakdown = z.infer<typeof ScoreBreakdown>;

/** One ranked target. */
export const RouteCandidate = z.object({
  instance_id: z.string(),
  agent_name: z.string(),
  operation: z.string(),
  endpoint: Endpoint,
  card_url: z.string(),
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
  })
  .strict()
  .refine((o) => o.ok === (o.failure === undefined), 'failure is set exactly when ok is false');
export type Outcome = z.infer<typeof Outcome>;

/** `POST /v1/outcomes` body. */
export const OutcomeBatch = z.object({ outcomes: z.array(Outcome).min(1).max(1000) }).strict();
export type OutcomeBatch = z.infer<typeof OutcomeBatch>;

/** A conflict between declarations (seed article 5.2). */
export const ConflictView = z.object({
  capability: z.string(),
  domain: z.string(),
  agents: z.array(z.string()),
  priority: z.number(),
  since: z.string(),
});
export type ConflictView = z.infer<typeof ConflictView>;
