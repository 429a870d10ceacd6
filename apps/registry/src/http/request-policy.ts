import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { RegistryMetrics } from '../metrics/registry-metrics.js';
import { requestHeader } from './node-incoming.js';
import { readIncoming, setBodyLimit, tooLarge } from './read-json.js';

/**
 * What the registry applies to every request, whichever server answers it: the body limit and the
 * request metrics. One implementation: `policyMiddleware` runs it in the hono app, and the node:http
 * fast paths (`api/fast-paths.ts`) call the same methods. (Auth is not middleware here: the verbs check
 * the `Authorization` header both paths hand them — registry tokens in `TokenAuthority`, lease tokens
 * in the heartbeat and deregister verbs.)
 */
export class RequestPolicy {
  constructor(
    private readonly metrics: Pick<RegistryMetrics, 'countRequest'>,
    /** `control_plane.max_body_bytes`; larger bodies get PAYLOAD_TOO_LARGE. */
    readonly maxBodyBytes: number,
  ) {}

  /** Refuses a body whose declared Content-Length is over the limit, before anything reads it. */
  admit(contentLength: string | undefined): void {
    if (contentLength !== undefined && Number(contentLength) > this.maxBodyBytes)
      throw tooLarge(this.maxBodyBytes);
  }

  /** Reads a Node request body within the limit (bodies sent without a length are cut off there). */
  readBody(incoming: IncomingMessage): Promise<Buffer> {
    return readIncoming(incoming, this.maxBodyBytes);
  }

  /** Counts one answered request under the route pattern it was sent to (never its path). */
  record(method: string, route: string, status: number): void {
    this.metrics.countRequest(method, route, status);
  }
}

/**
 * The route pattern a hono request was sent to: the endpoint that answered, or — when a middleware
 * refused it first (a 413) — the endpoint it would have reached; the middleware's own pattern when
 * no endpoint matches (a 404).
 */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  const at = c.req.routeIndex;
  for (let i = at; i < routes.length; i++) if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return routes[at]?.path ?? c.req.path;
}

/**
 * `policy` as hono middleware, for `app.use`: counts every answered request (after `onError` has
 * answered a refusal) and refuses an oversized body before anything reads it.
 */
export function policyMiddleware(policy: RequestPolicy): MiddlewareHandler[] {
  return [
    async (c, next) => {
      await next();
      policy.record(c.req.method, routeLabel(c), c.res.status);
    },
    async (c, next) => {
      policy.admit(requestHeader(c, 'content-length'));
      setBodyLimit(c, policy.maxBodyBytes);
      await next();
    },
  ];
}
