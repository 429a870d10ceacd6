import { z } from 'zod';
import { NodeStatus, RunOutcome } from './status.js';

const Text = (max: number) => z.string().max(max);

/** A new run. */
export const CreateTraceInput = z
  .object({
    /** @default a fresh random trace id */
    id: z.string().optional(),
    task: z.string().trim().min(1).max(20_000),
    /** Run inputs besides the task (provider, caller, …). */
    meta: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type CreateTraceInput = z.input<typeof CreateTraceInput>;

/** The plan of a run; the planner's result fits as it is. */
export const SavePlanInput = z.object({
  raw: z.unknown(),
  plan: z.record(z.string(), z.unknown()),
  warnings: z.array(z.string()),
  degraded: z.boolean(),
  levels: z.array(z.array(z.string())),
  provider: z.string().nullable().optional(),
  attempts: z.array(z.unknown()).optional(),
});
export type SavePlanInput = z.input<typeof SavePlanInput>;

/** A node insert or partial update; fields left out keep their stored value. */
export const NodeUpsert = z
  .object({
    node_id: z.string().min(1).max(40),
    capability: z.string().min(1).max(40),
    depends_on: z.array(z.string()).optional(),
    layer: z.number().int().min(0).nullable().optional(),
    parallel_group: Text(40).nullable().optional(),
    purpose: Text(400).nullable().optional(),
    status: NodeStatus.optional(),
    agent: Text(200).nullable().optional(),
    instance_id: Text(200).nullable().optional(),
    endpoint: Text(300).nullable().optional(),
    binding: z.record(z.string(), z.unknown()).nullable().optional(),
    attempts: z.number().int().min(0).optional(),
    started_at: z.date().nullable().optional(),
    finished_at: z.date().nullable().optional(),
    duration_ms: z.number().int().min(0).nullable().optional(),
    output_chars: z.number().int().min(0).nullable().optional(),
    input_context: z.string().nullable().optional(),
    output: z.string().nullable().optional(),
    error: z.string().nullable().optional(),
    in_flight: z
      .object({
        attempt: z.number().int().min(1),
        instance: Text(200),
        agent: Text(200),
        endpoint: Text(300),
        idempotent: z.boolean(),
      })
      .nullable()
      .optional(),
  })
  .strict();
export type NodeUpsert = z.input<typeof NodeUpsert>;

/** How a run ended. */
export const FinishTraceInput = z
  .object({
    status: z.union([RunOutcome, z.literal('aborted')]),
    summary: z.string().nullable().optional(),
    stats: z.record(z.string(), z.unknown()).nullable().optional(),
    error: z.string().nullable().optional(),
  })
  .strict();
export type FinishTraceInput = z.input<typeof FinishTraceInput>;
