/** The caller side of Agent Reach: ReachClient and its building blocks. */

export {
  type AttemptOutcome,
  type AttemptTimeouts,
  a2aAttempt,
  cancelA2ATask,
  type HttpAgents,
  type ProgressLine,
} from './a2a-attempt.js';
export { codeOfAttempt, type TargetFailure } from './call-error.js';
export { CandidateRouter, type Routed } from './candidate-router.js';
export {
  type CompiledClientOptions,
  compileClientOptions,
  type DurationInput,
  type ReachClientOptions,
} from './client-options.js';
export type { DispatchMode } from './dispatch.js';
export { type DnsFallback, resolveViaDns } from './dns-candidates.js';
export type { AttemptRecord } from './fallback-chain.js';
export { type FailedAttempt, type MoveOnContext, mayMoveOn } from './fallback-rule.js';
export { type OutcomeReport, OutcomeReporter } from './outcome-reporter.js';
export {
  ReachClient,
  type ReachRequest,
  type ReachResult,
  type ReachSuccess,
  type TargetResult,
} from './reach-client.js';
export type { ReachTarget } from './reach-target.js';
export { RetryBudget } from './retry-budget.js';
