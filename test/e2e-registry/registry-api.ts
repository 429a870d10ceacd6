import type { InstanceView } from '@agent-reach/sdk/protocol';

/** A JSON answer of the registry. */
export interface Reply {
  status: number;
  body: Record<string, unknown> & { code?: string; message?: string };
}

/** A thin HTTP client for the registry process (the test's own, so it can send anything). */
export class RegistryApi {
  constructor(private readonly url: () => string) {}

  /** Sends a request; a string body is sent as is, anything else as JSON. */
  async send(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const init: RequestInit = {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      signal: AbortSignal.timeout(10_000),
    };
    if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const response = await fetch(`${this.url()}${path}`, init);
    const text = await response.text();
    let parsed: Reply['body'] = {};
    try {
      parsed = text.length > 0 ? (JSON.parse(text) as Reply['body']) : {};
    } catch {
      parsed = { raw: text };
    }
    return { status: response.status, body: parsed };
  }

  /** `GET /v1/agents`. */
  async instances(): Promise<InstanceView[]> {
    const reply = await this.send('GET', '/v1/agents');
    if (reply.status !== 200)
      throw new Error(`GET /v1/agents: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body.instances as InstanceView[];
  }

  /** `GET /v1/agents/{id}`: the view, or undefined when the registry does not know the instance. */
  async instance(id: string): Promise<InstanceView | undefined> {
    const reply = await this.send('GET', `/v1/agents/${id}`);
    if (reply.status === 404) return undefined;
    if (reply.status !== 200)
      throw new Error(`GET /v1/agents/${id}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body as unknown as InstanceView;
  }

  /** `GET /metrics` as text. */
  async metrics(): Promise<string> {
    const res = await fetch(`${this.url()}/metrics`, { signal: AbortSignal.timeout(10_000) });
    return res.text();
  }
}

/** A metric's value from Prometheus text, or undefined when the series is absent. */
export function metricValue(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (space > 0 && line.slice(0, space) === series) return Number(line.slice(space + 1));
  }
  return undefined;
}
