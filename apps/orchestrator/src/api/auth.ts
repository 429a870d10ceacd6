import { timingSafeEqual } from 'node:crypto';
import { ReachError } from '@agent-reach/sdk/protocol';
import type { MiddlewareHandler } from 'hono';

/** Requires `Authorization: Bearer <token>` when a token is configured; open when it is null. */
export function requireToken(token: string | null): MiddlewareHandler {
  const expected = token === null ? null : Buffer.from(token);
  return async (c, next) => {
    if (expected !== null) {
      const header = c.req.header('authorization') ?? '';
      const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7).trim() : '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ReachError(
          'UNAUTHORIZED',
          'this route needs Authorization: Bearer <orchestrator.api_token>',
        );
      }
    }
    await next();
  };
}
