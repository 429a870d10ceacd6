import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { ReachError } from '@agent-reach/sdk/protocol';
import type { Context, Handler } from 'hono';
import type { ConsoleMetrics } from './console-metrics.js';

/** Request headers a browser or the CLI may pass through to an upstream API. */
const FORWARDED_REQUEST_HEADERS = [
  'accept',
  'authorization',
  'cache-control',
  'content-type',
  'if-none-match',
  'last-event-id',
  'x-request-id',
];

/** Response headers that describe one hop and must not be copied. */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-authenticate',
]);

/** Where a proxied route goes. */
export interface ProxyTarget {
  /** Shown in errors: `the orchestrator at … is unreachable`. */
  name: string;
  /** Upstream base URL without a trailing slash, e.g. `http://127.0.0.1:8702`. */
  baseUrl: string;
  /** The console path prefix removed before forwarding (`/registry`); empty keeps the path. */
  stripPrefix: string;
  /** Counts each request by outcome. */
  metrics?: ConsoleMetrics;
}

function upstreamPath(c: Context, stripPrefix: string): string {
  // The raw path keeps its percent-encoding, so ids reach the upstream exactly as sent.
  const url = new URL(c.req.url);
  let path = url.pathname;
  if (stripPrefix !== '' && path.startsWith(stripPrefix)) path = path.slice(stripPrefix.length);
  if (!path.startsWith('/')) path = `/${path}`;
  return `${path}${url.search}`;
}

function forwardedHeaders(c: Context, body: Buffer | null): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = c.req.header(name);
    if (value !== undefined) headers[name] = value;
  }
  if (body !== null) headers['content-length'] = String(body.length);
  return headers;
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | null,
  signal: AbortSignal,
) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // No socket timeout: POST /api/run answers only when the run ends, and SSE idles between events.
    const req = request(url, { method, headers, signal }, resolve);
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

function responseHeaders(upstream: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value === undefined || HOP_HEADERS.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  if ((upstream.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    // Tell buffering proxies in front of the console to pass events through at once.
    headers.set('x-accel-buffering', 'no');
    headers.set('cache-control', 'no-cache');
  }
  return headers;
}

/**
 * A hono handler that forwards the request to `target` and streams the answer back unchanged
 * (status, body, SSE included); an unreachable upstream is UNAVAILABLE, never a crash.
 */
export function proxyTo(target: ProxyTarget): Handler {
  return async (c) => {
    const method = c.req.method;
    const body = method === 'GET' || method === 'HEAD' ? null : Buffer.from(await c.req.arrayBuffer());
    const url = new URL(`${target.baseUrl}${upstreamPath(c, target.stripPrefix)}`);
    let upstream: IncomingMessage;
    try {
      upstream = await send(url, method, forwardedHeaders(c, body), body, c.req.raw.signal);
    } catch (cause) {
      const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
      target.metrics?.proxied.inc({ upstream: target.name, outcome: 'unreachable' });
      throw new ReachError(
        'UNAVAILABLE',
        `the ${target.name} at ${target.baseUrl} is unreachable (${reason})`,
        {
          data: { upstream: target.name },
          cause,
        },
      );
    }
    const status = upstream.statusCode ?? 502;
    target.metrics?.proxied.inc({ upstream: target.name, outcome: `${Math.floor(status / 100)}xx` });
    const headers = responseHeaders(upstream);
    if (method === 'HEAD' || status === 204 || status === 304) {
      upstream.resume();
      return new Response(null, { status, headers });
    }
    return new Response(Readable.toWeb(upstream) as ReadableStream<Uint8Array>, { status, headers });
  };
}
