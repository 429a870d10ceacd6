/** The planner: one model call along a provider chain, or the offline planner (seed 2.7, 3.3). */
export { extractJson } from './extract-json.js';
export { OfflinePlanner, type OfflinePlanOptions } from './offline-planner.js';
export { openAiClientFactory, Planner, type PlannerOptions, type PlanOptions } from './planner.js';
export { type PromptMessage, planPrompt } from './prompt.js';
export { askProvider, RETRYABLE_STATUSES, type TokenBudget } from './provider-call.js';
export { Semaphore } from './semaphore.js';
export type {
  ChatClient,
  ChatClientFactory,
  PlanAttempt,
  PlannerClock,
  PlanResult,
  ProviderSettings,
} from './types.js';
