import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseJsonText, requestIdFrom } from '@agent-reach/sdk/http';
import { HeartbeatRequest, RouteQuery } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import type { ZodError } from 'zod';
import { errorReply } from '../http/error-handler.js';
import type { RequestPolicy } from '../http/request-policy.js';
import { validationError } from '../http/validation.js';
import type { RegistrationVerbs } from '../registration/index.js';
import type { Router } from '../routing/index.js';
import { decodePathSegment, instanceIdParam } from './instance-id-param.js';

/** One JSON POST endpoint served on node:http: which requests it takes and how it answers a valid body. */
interface FastEndpoint<Body> {
  /** Matches the request URL (path and optional query); capture group 1, if any, is the path parameter. */
  path: RegExp;
  /** The route pattern, as the hono route is declared: the metrics label and the error log's route. */
  route: string;
  /** Checks the path parameter before the body is read (as the hono route does). */
  param?: (raw: string) => string;
  schema: { safeParse(value: unknown): { success: true; data: Body } | { success: false; error: ZodError } };
  /** Names the body in validation messages, e.g. `route query`. */
  what: string;
  /** Calls the verb; a thrown error is answered with its code, as the hono route would. */
  answer(
    body: Body,
    param: string,
    authorization: string | undefined,
  ): Promise<{ status: number; text: string }> | { status: number; text: string };
}

/** What the fast paths call: the same verbs, router and policy as the hono app. */
export interface FastPathDeps {
  verbs: Pick<RegistrationVerbs, 'heartbeat'>;
  router: Pick<Router, 'routeJson'>;
  /** The hono app's body limit and request metrics (`registry.policy`): one object for both paths. */
  policy: RequestPolicy;
  logger: Logger;
}

function endpoints(deps: FastPathDeps): FastEndpoint<never>[] {
  const { verbs, router } = deps;
  // The heartbeat verb answers with one shared object: serialise it once, not per heartbeat.
  let lastReply: unknown;
  let lastText = '';
  const heartbeat: FastEndpoint<HeartbeatRequest> = {
    path: /^\/v1\/agents\/([^/?#]+)\/heartbeat(?:\?.*)?$/,
    route: '/v1/agents/:id/heartbeat',
    param: (raw) => instanceIdParam(decodePathSegment(raw)),
    schema: HeartbeatRequest,
    what: 'heartbeat',
    answer: async (body, instanceId, authorization) => {
      const reply = await verbs.heartbeat(instanceId, body, authorization);
      if (reply !== lastReply) {
        lastReply = reply;
        lastText = JSON.stringify(reply);
      }
      return { status: 200, text: lastText };
    },
  };
  const route: FastEndpoint<RouteQuery> = {
    path: /^\/v1\/route(?:\?.*)?$/,
    route: '/v1/route',
    schema: RouteQuery,
    what: 'route query',
    // `routeJson` is `route` serialised: a cached answer's candidates are written from their cached JSON.
    answer: (query) => ({ status: 200, text: router.routeJson(query) }),
  };
  // Heartbeats first: they are most of the traffic.
  return [heartbeat, route] as FastEndpoint<never>[];
}

function sendJsonText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The registry's one seam between node:http and hono (docs/benchmarks.md, "HTTP fast paths"): its two
 * hottest endpoints — `POST /v1/agents/{id}/heartbeat` and `POST /v1/route` — answered straight on
 * node:http, without the per-request WHATWG objects, while they measure at least 10 % faster than hono
 * in the same run (`pnpm bench fast-paths`; registrations went back to hono when they did not). Each runs what the hono app runs: the
 * same `RequestPolicy` (body limit, request metrics under the route pattern), the same zod schema, the
 * same verb (which checks the `Authorization` header) and the same `{code, message, requestId}` errors;
 * `api/fast-paths.test.ts` checks each concern on both paths. The returned listener returns false for
 * every other request, which the caller hands to hono.
 */
export function createFastPaths(deps: FastPathDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { policy, logger } = deps;
  const table = endpoints(deps);

  async function handle(
    endpoint: FastEndpoint<never>,
    raw: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    let status: number;
    try {
      policy.admit(req.headers['content-length']);
      const param = endpoint.param ? endpoint.param(raw) : raw;
      const parsed = endpoint.schema.safeParse(parseJsonText((await policy.readBody(req)).toString('utf8')));
      if (!parsed.success) throw validationError(parsed.error, endpoint.what);
      const answer = await endpoint.answer(parsed.data, param, req.headers.authorization);
      status = answer.status;
      sendJsonText(res, status, answer.text);
    } catch (error) {
      const request = { requestId: requestIdFrom(req.headers['x-request-id'] as string | undefined) };
      const reply = errorReply(
        error,
        { ...request, method: 'POST', path: req.url ?? endpoint.route },
        logger,
      );
      status = reply.status;
      if (!req.readableEnded) req.resume();
      sendJsonText(res, status, JSON.stringify(reply.body));
    }
    policy.record('POST', endpoint.route, status);
  }

  return (req, res) => {
    if (req.method !== 'POST') return false;
    const url = req.url ?? '';
    for (const endpoint of table) {
      const match = endpoint.path.exec(url);
      if (!match) continue;
      void handle(endpoint, match[1] ?? '', req, res).catch((error: unknown) => {
        logger.error({ err: error, route: endpoint.route }, 'fast path response failed');
        res.destroy();
      });
      return true;
    }
    return false;
  };
}
