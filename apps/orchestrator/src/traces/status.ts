import { z } from 'zod';

/** A run's status in the trace store; `aborted` is set by the stale reaper (seed 2.9). */
export const TraceStatus = z.enum(['running', 'ok', 'degraded', 'failed', 'aborted']);
export type TraceStatus = z.infer<typeof TraceStatus>;

/** How a finished run ended (seed 3.6). */
export const RunOutcome = z.enum(['ok', 'degraded', 'failed']);
export type RunOutcome = z.infer<typeof RunOutcome>;

/**
 * A node's status; `unavailable` means no agent could be bound for its capability, `interrupted` that
 * a non-idempotent call was in flight when its orchestrator died and its agent was gone on resume.
 */
export const NodeStatus = z.enum([
  'pending',
  'running',
  'succeeded',
  'failed',
  'unavailable',
  'skipped',
  'interrupted',
]);
export type NodeStatus = z.infer<typeof NodeStatus>;
