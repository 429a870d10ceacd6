import type { Hono } from 'hono';

/** A JSON answer from `app.request()`. */
export interface JsonReply {
  status: number;
  body: Record<string, unknown> & { code?: string; message?: string };
}

/** Sends a request to the app (no port) and reads the JSON answer. `body` strings are sent raw. */
export async function call(
  app: Hono,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonReply> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await app.request(path, init);
  const text = await response.text();
  return { status: response.status, body: text.length > 0 ? JSON.parse(text) : {} };
}

/** An `Authorization: Bearer` header. */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
