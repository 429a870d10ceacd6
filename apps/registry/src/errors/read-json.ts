import { ReachError } from '@agent-reach/sdk/protocol';
import type { Context } from 'hono';

/** Reads the request body as JSON; malformed or missing JSON is INVALID_JSON, never a 5xx. */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.length === 0)
    throw new ReachError('INVALID_JSON', 'the request body is empty; send a JSON object');
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ReachError('INVALID_JSON', `the request body is not valid JSON: ${(cause as Error).message}`, {
      cause,
    });
  }
}
