// The console's calls: `/api/*` goes to the orchestrator, `/registry/*` to the registry (same origin).

/** An API failure with the API's error code. */
export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function request(path, init = {}) {
  let res;
  try {
    res = await fetch(path, init);
  } catch (cause) {
    throw new ApiError('UNAVAILABLE', `the console cannot be reached (${cause.message})`, 0);
  }
  if (res.ok) return res;
  let body = null;
  try {
    body = await res.json();
  } catch {
    // Not an Agent Reach error body.
  }
  throw new ApiError(body?.code ?? `HTTP_${res.status}`, body?.message ?? res.statusText, res.status);
}

/** GET a JSON document. */
export async function getJson(path) {
  return (await request(path, { headers: { accept: 'application/json' } })).json();
}

/** POST a JSON body, answer parsed. */
export async function postJson(path, body) {
  const res = await request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

/** DELETE, answer parsed. */
export async function deleteJson(path) {
  return (await request(path, { method: 'DELETE', headers: { accept: 'application/json' } })).json();
}

/** Path segment encoding for ids taken from data. */
export const seg = (value) => encodeURIComponent(String(value));
