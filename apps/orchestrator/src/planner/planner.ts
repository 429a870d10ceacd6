import { type CatalogEntry, DEFAULT_CATALOG_ENTRIES } from '@agent-reach/sdk/protocol';
import OpenAI from 'openai';
import {
  type CatalogCapability,
  catalogFromEntries,
  levels,
  type NormalizedPlan,
  normalizePlan,
} from '../plan/index.js';
import { extractJson } from './extract-json.js';
import { OfflinePlanner } from './offline-planner.js';
import { planPrompt } from './prompt.js';
import { askProvider, type TokenBudget } from './provider-call.js';
import { Semaphore } from './semaphore.js';
import type {
  ChatClient,
  ChatClientFactory,
  PlanAttempt,
  PlannerClock,
  PlanResult,
  ProviderSettings,
} from './types.js';

/** Options for a Planner. */
export interface PlannerOptions {
  /** The provider chain in order (config `orchestrator.providers`); empty means the offline planner. */
  providers: readonly ProviderSettings[];
  /** Environment to read `api_key_env` from (the config loader's record, never process.env here). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The catalog when a run brings none (a run brings the live one). @default DEFAULT_CATALOG_ENTRIES */
  catalog?: readonly CatalogEntry[];
  /** @default an `openai` client per provider with its base URL and no built-in retries */
  clientFactory?: ChatClientFactory;
  /** @default performance.now and setTimeout */
  clock?: PlannerClock;
  /** @default { initial: 1024, cap: 4096 } */
  tokens?: TokenBudget;
  /** Pause before the one retry on a retryable status. @default 300 */
  retryDelayMs?: number;
}

/** Per-run options. */
export interface PlanOptions {
  /** Capabilities with a live agent now (from the capability index). */
  available?: readonly string[];
  /** The live catalog of this run's discovery (built-in, config and every published capability). */
  catalog?: readonly CatalogCapability[];
  /** Put this provider first in the chain (the seed's `provider` field of a run). */
  provider?: string;
}

/** The default client: the `openai` package against the provider's base URL. */
export const openAiClientFactory: ChatClientFactory = (provider, apiKey) =>
  new OpenAI({
    baseURL: provider.base_url,
    apiKey: apiKey ?? 'none',
    maxRetries: 0,
    timeout: provider.timeout,
  });

const systemClock: PlannerClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Plans a task with one model call along a provider fallback chain (per-provider concurrency limits),
 * or with the offline planner when no provider is configured; any failure yields the fallback plan,
 * marked degraded. The result is always normalised.
 */
export class Planner {
  readonly #providers: readonly ProviderSettings[];
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #catalog: readonly CatalogCapability[];
  readonly #factory: ChatClientFactory;
  readonly #clock: PlannerClock;
  readonly #tokens: TokenBudget;
  readonly #retryDelayMs: number;
  readonly #offline = new OfflinePlanner();
  readonly #limits = new Map<string, Semaphore>();
  readonly #clients = new Map<string, ChatClient>();

  constructor(options: PlannerOptions) {
    this.#providers = options.providers;
    this.#env = options.env ?? {};
    this.#catalog = catalogFromEntries(options.catalog ?? DEFAULT_CATALOG_ENTRIES);
    this.#factory = options.clientFactory ?? openAiClientFactory;
    this.#clock = options.clock ?? systemClock;
    this.#tokens = options.tokens ?? { initial: 1024, cap: 4096 };
    this.#retryDelayMs = options.retryDelayMs ?? 300;
    for (const p of this.#providers) this.#limits.set(p.name, new Semaphore(p.concurrency));
  }

  /** True when plans come from the offline planner. */
  get offline(): boolean {
    return this.#providers.length === 0;
  }

  /** Plans `task`; never throws for model trouble — that ends in the degraded fallback plan. */
  async plan(task: string, options: PlanOptions = {}): Promise<PlanResult> {
    const catalog = options.catalog ?? this.#catalog;
    const ctx = {
      catalog: catalog.map((c) => c.id),
      available: options.available,
      task,
      coding: catalog.filter((c) => c.coding).map((c) => c.id),
    };
    if (this.offline) {
      const raw = this.#offline.plan(task, { catalog, available: options.available });
      return result(raw, normalizePlan(raw, ctx), 'offline', []);
    }
    const attempts: PlanAttempt[] = [];
    const warnings: string[] = [];
    let lastText: string | null = null;
    for (const provider of this.#chain(options.provider)) {
      const client = this.#client(provider, attempts);
      if (client === null) continue;
      const messages = planPrompt(catalog, options.available, task);
      const answer = await this.#limits.get(provider.name)!.run(() =>
        askProvider(provider, client, messages, {
          clock: this.#clock,
          budget: this.#tokens,
          retryDelayMs: this.#retryDelayMs,
          attempts,
        }),
      );
      if (!answer.ok) continue;
      lastText = answer.text;
      const parsed = extractJson(answer.text);
      if (!parsed.ok) {
        warnings.push(`${provider.name}: answer is not JSON — next provider`);
        continue;
      }
      const normalized = normalizePlan(parsed.value, ctx);
      if (normalized.degraded) {
        warnings.push(`${provider.name}: answer is not a usable plan — next provider`);
        continue;
      }
      return result(parsed.value, withWarnings(normalized, warnings), provider.name, attempts);
    }
    warnings.push('every planner provider failed — using the fallback plan');
    return result(lastText, withWarnings(normalizePlan(null, ctx), warnings), null, attempts);
  }

  #chain(first: string | undefined): ProviderSettings[] {
    const preferred = this.#providers.filter((p) => p.name === first);
    return [...preferred, ...this.#providers.filter((p) => p.name !== first)];
  }

  #client(provider: ProviderSettings, attempts: PlanAttempt[]): ChatClient | null {
    const cached = this.#clients.get(provider.name);
    if (cached) return cached;
    const apiKey = provider.api_key_env === undefined ? undefined : this.#env[provider.api_key_env];
    if (provider.api_key_env !== undefined && !apiKey) {
      const error = `environment variable ${provider.api_key_env} is not set — provider skipped`;
      attempts.push({ provider: provider.name, status: null, ms: 0, max_tokens: 0, error });
      return null;
    }
    try {
      const client = this.#factory(provider, apiKey);
      this.#clients.set(provider.name, client);
      return client;
    } catch (e) {
      const error = `cannot build a client: ${e instanceof Error ? e.message : String(e)} — provider skipped`;
      attempts.push({ provider: provider.name, status: null, ms: 0, max_tokens: 0, error });
      return null;
    }
  }
}

function withWarnings(normalized: NormalizedPlan, before: string[]): NormalizedPlan {
  return { ...normalized, warnings: [...before, ...normalized.warnings] };
}

function result(
  raw: unknown,
  n: NormalizedPlan,
  provider: string | null,
  attempts: PlanAttempt[],
): PlanResult {
  return {
    raw,
    plan: n.plan,
    levels: levels(n.plan),
    warnings: n.warnings,
    degraded: n.degraded,
    provider,
    attempts,
  };
}
