import { ERROR_CODES, type ErrorCode, ReachError } from '../protocol/errors.js';
import { type RouteQuery, RouteResponse } from '../protocol/route.js';

/** What asking the registry gave: an answer, or a sign that it is unreachable (so DNS is asked instead). */
export type RegistryRouteResult =
  | { kind: 'answer'; response: RouteResponse }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'rejected'; error: ReachError };

/** Asks the registry's `POST /v1/route`; a network error, timeout or 5xx reads as unreachable. */
export async function routeViaRegistry(
  registryUrl: string,
  query: RouteQuery,
  options: { fetch: typeof fetch; timeoutMs: number; traceparent?: string },
): Promise<RegistryRouteResult> {
  let response: Response;
  try {
    response = await options.fetch(`${registryUrl}/v1/route`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.traceparent ? { traceparent: options.traceparent } : {}),
      },
      body: JSON.stringify(query),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    return { kind: 'unreachable', reason: (error as Error).message };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    return {
      kind: 'unreachable',
      reason: `HTTP ${response.status}, no JSON body: ${(error as Error).message}`,
    };
  }
  if (response.status >= 500) return { kind: 'unreachable', reason: `HTTP ${response.status}` };
  if (!response.ok) {
    const { code, message } = (body ?? {}) as { code?: unknown; message?: unknown };
    const known = (ERROR_CODES as readonly unknown[]).includes(code) ? (code as ErrorCode) : 'BAD_REQUEST';
    const text = typeof message === 'string' ? message : `HTTP ${response.status}`;
    return { kind: 'rejected', error: new ReachError(known, text, { data: { status: response.status } }) };
  }
  const parsed = RouteResponse.safeParse(body);
  if (!parsed.success) return { kind: 'unreachable', reason: 'the route answer does not match the schema' };
  return { kind: 'answer', response: parsed.data };
}
