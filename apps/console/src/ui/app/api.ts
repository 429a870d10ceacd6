// The console's calls: `/api/*` goes to the orchestrator, `/registry/*` to the registry (same origin).

/** An API failure with the API's error code. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function request(path: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch (cause) {
    throw new ApiError('UNAVAILABLE', `the console cannot be reached (${(cause as Error).message})`, 0);
  }
  if (res.ok) return res;
  let body: { code?: unknown; message?: unknown } | null;
  try {
    body = (await res.json()) as { code?: unknown; message?: unknown } | null;
  } catch {
    // Not an Agent Reach error body.
    body = null;
  }
  throw new ApiError(
    typeof body?.code === 'string' ? body.code : `HTTP_${res.status}`,
    typeof body?.message === 'string' ? body.message : res.statusText,
    res.status,
  );
}

/** GET a JSON document; `T` is the SDK's wire type of the answer. */
export async function getJson<T>(path: string): Promise<T> {
  return (await (await request(path, { headers: { accept: 'application/json' } })).json()) as T;
}

/** POST a JSON body, answer parsed. */
export async function postJson<T>(path: string, body: unknown): Promise<T> {
  const res = await request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

/** DELETE, answer parsed. */
export async function deleteJson<T>(path: string): Promise<T> {
  return (await (
    await request(path, { method: 'DELETE', headers: { accept: 'application/json' } })
  ).json()) as T;
}

/** Path segment encoding for ids taken from data. */
export const seg = (value: unknown): string => encodeURIComponent(String(value));
