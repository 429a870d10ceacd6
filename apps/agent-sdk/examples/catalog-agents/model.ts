import OpenAI from 'openai';
import { offlineAnswer } from './offline-templates.js';
import type { TaskInput } from './task-input.js';

/** Produces an agent's answer text for one capability. */
export interface CatalogModel {
  readonly name: string;
  answer(capability: string, input: TaskInput, signal: AbortSignal): Promise<string>;
}

/** The default: deterministic template text built from the task and the context. */
export const offlineModel: CatalogModel = {
  name: 'offline-template',
  answer: async (capability, input) => offlineAnswer(capability, input),
};

const ROLE: Record<string, string> = {
  planning: 'Break the task into steps, milestones and decisions.',
  research: 'Collect the facts, evidence and open questions the task depends on.',
  security_review: 'Find the risks, threats and security weaknesses, with mitigations.',
  validation: 'Define acceptance criteria and checks for the task.',
  implementation: 'Deliver runnable code, configuration or interface changes only.',
  writing: 'Write the prose deliverable (plan, proposal, copy or report) in full.',
  synthesis: 'Merge the upstream outputs into one final answer.',
};

/** A model behind any OpenAI-compatible endpoint. */
export function openAiModel(baseURL: string, model: string, apiKey: string | undefined): CatalogModel {
  const client = new OpenAI({ baseURL, apiKey: apiKey ?? 'none', maxRetries: 1, timeout: 60_000 });
  return {
    name: model,
    async answer(capability, input, signal) {
      const user = [
        `Task: ${input.task}`,
        input.purpose && `Your step: ${input.purpose}`,
        input.contextText && `Context:\n${input.contextText}`,
      ]
        .filter(Boolean)
        .join('\n\n');
      const res = await client.chat.completions.create(
        {
          model,
          max_tokens: 1500,
          messages: [
            {
              role: 'system',
              content: `${ROLE[capability] ?? 'Do the task.'} Answer in the language of the task.`,
            },
            { role: 'user', content: user },
          ],
        },
        { signal },
      );
      const text = res.choices[0]?.message?.content?.trim();
      if (!text)
        throw new Error(`model ${model} returned no text (finish_reason ${res.choices[0]?.finish_reason})`);
      return text;
    },
  };
}

/** `AGENT_LLM_BASE_URL` + `AGENT_LLM_MODEL` (+ `AGENT_LLM_API_KEY`) select a provider; otherwise offline. */
export function modelFromEnv(env: Record<string, string | undefined>): CatalogModel {
  const base = env.AGENT_LLM_BASE_URL?.trim();
  const model = env.AGENT_LLM_MODEL?.trim();
  if (base && model) return openAiModel(base, model, env.AGENT_LLM_API_KEY);
  return offlineModel;
}
