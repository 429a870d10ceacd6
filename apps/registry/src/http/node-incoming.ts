import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/**
 * The Node request behind a context served by @hono/node-server; undefined under `app.request()`.
 * Reading it directly skips building a WHATWG Request per call, the largest cost on the hot path.
 */
export function nodeIncoming(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming !== undefined && typeof incoming.on === 'function' && typeof incoming.headers === 'object'
    ? incoming
    : undefined;
}

/** A request header (lower-case `name`), read from the Node request when there is one. */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = nodeIncoming(c);
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
