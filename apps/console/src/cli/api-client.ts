import {
  type ConflictView,
  type DeclarationHistoryEntry,
  ERROR_CODES,
  type ErrorCode,
  type ExternalAgentRequest,
  type ExternalAgentResponse,
  type GovernanceReport,
  type InstanceView,
  ReachError,
  type RouteQueryInput,
  type RouteResponse,
  type RoutingStats,
} from '@agent-reach/sdk/protocol';
import type { DiscoveryView, RunSummary, TraceDetail, TracePage } from './orchestrator-views.js';

/** Where the two APIs are and how to call them. */
export interface ApiClientOptions {
  registryUrl: string;
  orchestratorUrl: string;
  /** Sent as `Authorization: Bearer` to the orchestrator's mutating routes. */
  apiToken?: string | null;
  /** Sent as `Authorization: Bearer` to the registry's writes (external registration, version verification). */
  registryToken?: string | null;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
}

/** Which API a request goes to. */
type Api = 'registry' | 'orchestrator';

/** Registry routes that need the registry token: registering by card URL, verifying a version. */
const isRegistryWrite = (path: string, method: string | undefined): boolean =>
  method === 'POST' && (path === '/v1/agents/external' || path.startsWith('/v1/declarations/'));

const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);

/** Turns a non-2xx answer into a ReachError with the API's own code when it sent one. */
async function errorFrom(res: Response, api: Api): Promise<ReachError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; data?: unknown };
    if (typeof body.message === 'string') {
      const code = isErrorCode(body.code) ? body.code : 'INTERNAL';
      const data =
        typeof body.data === 'object' && body.data !== null
          ? (body.data as Record<string, unknown>)
          : undefined;
      return new ReachError(code, body.message, data === undefined ? {} : { data });
    }
  } catch {}
  const code: ErrorCode = res.status === 502 || res.status === 503 ? 'UNAVAILABLE' : 'INTERNAL';
  return new ReachError(
    code,
    `the ${api} answered HTTP ${res.status}: ${text.slice(0, 200) || res.statusText}`,
  );
}

/** A thin client for the registry and orchestrator HTTP APIs (ARCHITECTURE section 11); no logic of its own. */
export class ApiClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Sends one request; an unreachable API is UNAVAILABLE, an error answer keeps the API's code. */
  async send(api: Api, path: string, init: RequestInit = {}): Promise<Response> {
    const base = api === 'registry' ? this.options.registryUrl : this.options.orchestratorUrl;
    const headers = new Headers(init.headers);
    if (api === 'orchestrator' && this.options.apiToken && init.method !== undefined && init.method !== 'GET')
      headers.set('authorization', `Bearer ${this.options.apiToken}`);
    if (api === 'registry' && this.options.registryToken && isRegistryWrite(path, init.method))
      headers.set('authorization', `Bearer ${this.options.registryToken}`);
    let res: Response;
    try {
      res = await this.fetch(`${base.replace(/\/+$/, '')}${path}`, { ...init, headers });
    } catch (cause) {
      if ((cause as Error).name === 'AbortError')
        throw new ReachError('CANCELLED', 'the request was cancelled', { cause });
      const reason =
        ((cause as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? (cause as Error).message;
      throw new ReachError('UNAVAILABLE', `cannot reach the ${api} at ${base} (${reason})`, { cause });
    }
    if (!res.ok) throw await errorFrom(res, api);
    return res;
  }

  private async json<T>(api: Api, path: string, init: RequestInit = {}): Promise<T> {
    const res = await this.send(api, path, init);
    return (await res.json()) as T;
  }

  private post<T>(api: Api, path: string, body: unknown): Promise<T> {
    return this.json<T>(api, path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  /** `GET /v1/agents`: every instance with state, load and last heartbeat. */
  async agents(
    filter: { state?: string; capability?: string; agent_name?: string } = {},
  ): Promise<InstanceView[]> {
    const search = new URLSearchParams(filter).toString();
    const path = `/v1/agents${search ? `?${search}` : ''}`;
    return (await this.json<{ instances: InstanceView[] }>('registry', path)).instances;
  }

  /** `GET /v1/agents/{id}`. */
  agent(id: string): Promise<InstanceView> {
    return this.json('registry', `/v1/agents/${encodeURIComponent(id)}`);
  }

  /** `GET /v1/declarations/{agent}`: the declaration history, oldest first. */
  async declarations(agent: string): Promise<DeclarationHistoryEntry[]> {
    const path = `/v1/declarations/${encodeURIComponent(agent)}`;
    return (await this.json<{ history: DeclarationHistoryEntry[] }>('registry', path)).history;
  }

  /** `POST /v1/declarations/{agent}/versions/{version}/verify`: marks a version verified. */
  verifyVersion(agent: string, version: string, reason?: string): Promise<DeclarationHistoryEntry> {
    const path = `/v1/declarations/${encodeURIComponent(agent)}/versions/${encodeURIComponent(version)}/verify`;
    return this.post('registry', path, reason === undefined ? {} : { reason });
  }

  /** `POST /v1/route`. */
  route(query: RouteQueryInput): Promise<RouteResponse> {
    return this.post('registry', '/v1/route', query);
  }

  /** `POST /v1/agents/external`: registers anyone's A2A agent by its card URL. */
  registerExternal(request: ExternalAgentRequest): Promise<ExternalAgentResponse> {
    return this.post('registry', '/v1/agents/external', request);
  }

  /** `GET /v1/conflicts`. */
  async conflicts(): Promise<ConflictView[]> {
    return (await this.json<{ conflicts: ConflictView[] }>('registry', '/v1/conflicts')).conflicts;
  }

  /** `GET /v1/zone`: the zone file text. */
  async zone(): Promise<string> {
    return (await this.send('registry', '/v1/zone')).text();
  }

  /** `GET /v1/routing/stats`. */
  routingStats(): Promise<RoutingStats> {
    return this.json('registry', '/v1/routing/stats');
  }

  /** `GET /v1/reports/governance?window=…`: the governance report. */
  governanceReport(window: string): Promise<GovernanceReport> {
    return this.json('registry', `/v1/reports/governance?window=${encodeURIComponent(window)}`);
  }

  /** `POST /api/run`: runs a task and waits for its end. */
  run(task: string, provider?: string): Promise<RunSummary> {
    return this.post('orchestrator', '/api/run', { text: task, ...(provider ? { provider } : {}) });
  }

  /** `POST /api/start`: the trace id at once. */
  start(task: string, provider?: string): Promise<{ trace_id: string; status: string }> {
    return this.post('orchestrator', '/api/start', { text: task, ...(provider ? { provider } : {}) });
  }

  /** `GET /api/stream/{id}` with `Last-Event-ID`: the raw SSE response. */
  stream(id: string, lastEventId: number, signal?: AbortSignal): Promise<Response> {
    return this.send('orchestrator', `/api/stream/${encodeURIComponent(id)}`, {
      headers: {
        accept: 'text/event-stream',
        ...(lastEventId > 0 ? { 'last-event-id': String(lastEventId) } : {}),
      },
      ...(signal ? { signal } : {}),
    });
  }

  /** `GET /api/traces` with filters (`status`, `q`, `limit`, `cursor`, …). */
  traces(query: Record<string, string> = {}): Promise<TracePage> {
    const search = new URLSearchParams(query).toString();
    return this.json('orchestrator', `/api/traces${search ? `?${search}` : ''}`);
  }

  /** `GET /api/traces/{id}`. */
  trace(id: string): Promise<TraceDetail> {
    return this.json('orchestrator', `/api/traces/${encodeURIComponent(id)}`);
  }

  /** `DELETE /api/traces/{id}`. */
  deleteTrace(id: string): Promise<{ trace_id: string; deleted: boolean }> {
    return this.json('orchestrator', `/api/traces/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  /** `GET /api/discovery`. */
  discovery(): Promise<DiscoveryView> {
    return this.json('orchestrator', '/api/discovery');
  }
}
