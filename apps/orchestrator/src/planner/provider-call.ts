import type { PromptMessage } from './prompt.js';
import type { ChatClient, PlanAttempt, PlannerClock, ProviderSettings } from './types.js';

/** HTTP statuses worth one more try at the same provider (seed 2.7). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([
  408, 425, 429, 500, 502, 503, 504, 520, 522, 523, 524,
]);

/** Token budgets for one provider: start, and the cap that doubling on `finish_reason=length` stops at. */
export interface TokenBudget {
  initial: number;
  cap: number;
}

/** What one provider gave back: its answer text, or nothing after its attempts were spent. */
export type ProviderAnswer = { ok: true; text: string } | { ok: false };

const statusOf = (e: unknown): number | null => {
  const status = (e as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : null;
};
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 300);

/**
 * Asks one provider for a plan: retries once on a retryable status, doubles the token budget on
 * `finish_reason=length` up to the cap (never using reasoning text as the answer), records every call.
 */
export async function askProvider(
  provider: ProviderSettings,
  client: ChatClient,
  messages: PromptMessage[],
  deps: { clock: PlannerClock; budget: TokenBudget; retryDelayMs: number; attempts: PlanAttempt[] },
): Promise<ProviderAnswer> {
  const { clock, budget, attempts } = deps;
  let maxTokens = budget.initial;
  let retried = false;
  for (;;) {
    const started = clock.now();
    const record = (a: Omit<PlanAttempt, 'provider' | 'ms' | 'max_tokens'>) =>
      attempts.push({
        provider: provider.name,
        ms: Math.round(clock.now() - started),
        max_tokens: maxTokens,
        ...a,
      });
    try {
      const completion = await client.chat.completions.create(
        { model: provider.model, messages, max_tokens: maxTokens, temperature: 0 },
        { timeout: provider.timeout, maxRetries: 0 },
      );
      const choice = completion.choices[0];
      const finish = choice?.finish_reason ?? 'none';
      const text = choice?.message?.content ?? '';
      if (finish === 'length') {
        record({ status: 200, finish_reason: finish, error: 'output cut at the token budget' });
        if (maxTokens >= budget.cap) return { ok: false };
        maxTokens = Math.min(maxTokens * 2, budget.cap);
        continue;
      }
      if (text.trim() === '') {
        record({ status: 200, finish_reason: finish, error: 'empty answer' });
        return { ok: false };
      }
      record({ status: 200, finish_reason: finish });
      return { ok: true, text };
    } catch (e) {
      const status = statusOf(e);
      record({ status, error: messageOf(e) });
      if (status === null || !RETRYABLE_STATUSES.has(status) || retried) return { ok: false };
      retried = true;
      await clock.sleep(deps.retryDelayMs);
    }
  }
}
