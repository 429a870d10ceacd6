import type { IncomingMessage } from 'node:http';
import { ReachError } from '@agent-reach/sdk/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { nodeIncoming, requestHeader } from './node-incoming.js';

/** `control_plane.max_body_bytes`' default. */
export const DEFAULT_MAX_BODY_BYTES = 262_144;

const limits = new WeakMap<Context, number>();

/** The PAYLOAD_TOO_LARGE error for a limit. */
export function tooLarge(maxBytes: number): ReachError {
  return new ReachError('PAYLOAD_TOO_LARGE', `the request body is larger than ${maxBytes} bytes`, {
    data: { max_body_bytes: maxBytes },
  });
}

/**
 * Refuses bodies whose Content-Length exceeds `maxBytes` before anything reads them, and sets the
 * limit `readJson` enforces on bodies sent without a length (chunked).
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const length = requestHeader(c, 'content-length');
    if (length !== undefined && Number(length) > maxBytes) throw tooLarge(maxBytes);
    limits.set(c, maxBytes);
    await next();
  };
}

/** Reads a Node request body, refusing it with PAYLOAD_TOO_LARGE past `maxBytes`. */
export function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        incoming.resume(); // drain the rest so the connection stays usable
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new ReachError('BAD_REQUEST', 'the request body could not be read', { cause: error }));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
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
  const text = await readText(c, limits.get(c) ?? DEFAULT_MAX_BODY_BYTES);
  if (text.length === 0)
    throw new ReachError('INVALID_JSON', 'the request body is empty; send a JSON object');
  return parseJsonText(text);
}

/** Parses body text as JSON; empty or malformed text is INVALID_JSON. */
export function parseJsonText(text: string): unknown {
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
