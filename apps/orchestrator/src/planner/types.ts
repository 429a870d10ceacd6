import type { ProviderConfig } from '@agent-reach/config';
import type OpenAI from 'openai';
import type { z } from 'zod';
import type { Plan } from '../plan/index.js';

/** One provider as config yields it (`orchestrator.providers[]`, timeout in ms). */
export type ProviderSettings = z.output<typeof ProviderConfig>;

/** The part of the OpenAI client the planner uses; tests may hand in anything with this shape. */
export type ChatClient = Pick<OpenAI, 'chat'>;

/** Builds the client for one provider; `apiKey` is already read from the environment. */
export type ChatClientFactory = (provider: ProviderSettings, apiKey: string | undefined) => ChatClient;

/** Time for the planner: a monotonic `now()` in ms and a sleep between retries. */
export interface PlannerClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** One HTTP call to a provider (or one refusal to call it), as recorded in the plan result. */
export interface PlanAttempt {
  provider: string;
  /** HTTP status; null when no response came back (refused, timed out, not called). */
  status: number | null;
  ms: number;
  max_tokens: number;
  finish_reason?: string;
  error?: string;
}

/** What a planning run hands back: the model's raw answer, the normalised plan and how it got there. */
export interface PlanResult {
  /** The parsed model JSON (or the offline planner's plan); the text when it did not parse; null when no answer. */
  raw: unknown;
  plan: Plan;
  levels: string[][];
  warnings: string[];
  /** True when the fallback plan had to be used. */
  degraded: boolean;
  /** The provider that produced the plan, `offline`, or null when every provider failed. */
  provider: string | null;
  attempts: PlanAttempt[];
}
