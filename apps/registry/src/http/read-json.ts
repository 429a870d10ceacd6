import type { IncomingMessage } from 'node:http';
import { parseJsonText, tooLarge } from '@agent-reach/sdk/http';
import { ReachError } from '@agent-reach/sdk/protocol';
import type { Context } from 'hono';
import { nodeIncoming } from './node-incoming.js';

/** `control_plane.max_body_bytes`' default. */
export const DEFAULT_MAX_BODY_BYTES = 262_144;

const limits = new WeakMap<Context, number>();

/** Sets the limit `readJson` enforces on this request's body (the policy middleware sets it). */
export function setBodyLimit(c: Context, maxBytes: number): void {
  limits.set(c, maxBytes);
}

/**
 * Reads a Node request body, refusing it with PAYLOAD_TOO_LARGE past `maxBytes`. The listeners are
 * inline and anonymous and stay attached (the request is done after `end`): this runs for every
 * heartbeat, and named closures cost a `__name` call each under tsx.
 */
export function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    incoming.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBytes) {
        refused = true;
        chunks.length = 0;
        incoming.resume(); // drain the rest so the connection stays usable
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    incoming.on('end', () => {
      if (!refused) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    incoming.on('error', (error: Error) => {
      refused = true;
      reject(new ReachError('BAD_REQUEST', 'the request body could not be read', { cause: error }));
    });
  });
}

async function readText(c: Context, maxBytes: number): Promise<string> {
  const incoming = nodeIncoming(c);
  if (incoming) return (await readIncoming(incoming, maxBytes)).toString('utf8');
  const body = await c.req.arrayBuffer();
  if (body.byteLength > maxBytes) throw tooLarge(maxBytes);
  return Buffer.from(body).toString('utf8');
}

/** Reads the request body as JSON within the body limit; malformed or missing JSON is INVALID_JSON, never a 5xx. */
export async function readJson(c: Context): Promise<unknown> {
  return parseJsonText(await readText(c, limits.get(c) ?? DEFAULT_MAX_BODY_BYTES));
}

export { parseJsonText, tooLarge };
