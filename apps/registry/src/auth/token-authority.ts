import { createHash } from 'node:crypto';
import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import type { ResolvedToken } from '../config.js';
import { type CapabilityMatcher, compileGrant } from './capability-pattern.js';
import { bearerToken } from './lease-token.js';

interface Grant {
  name: string;
  allows: CapabilityMatcher;
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Checks registry write tokens and the capabilities each may register. */
export class TokenAuthority {
  // Keyed by the token's hash so the lookup never compares secrets byte by byte.
  private readonly grants = new Map<string, Grant>();

  constructor(tokens: readonly ResolvedToken[]) {
    for (const token of tokens) {
      this.grants.set(sha256(token.token), { name: token.name, allows: compileGrant(token.capabilities) });
    }
  }

  /** True when no tokens are configured: writes are open (embedded default on loopback). */
  get open(): boolean {
    return this.grants.size === 0;
  }

  /** Allows registering `capabilities` with the `Authorization` header, or says why not. */
  authorize(
    authorization: string | undefined,
    capabilities: readonly string[],
  ): Result<{ tokenName: string | null }> {
    if (this.open) return ok({ tokenName: null });
    const token = bearerToken(authorization);
    if (token === undefined) {
      return err(new ReachError('UNAUTHORIZED', 'registration needs Authorization: Bearer <registry token>'));
    }
    const grant = this.grants.get(sha256(token));
    if (!grant) return err(new ReachError('UNAUTHORIZED', 'the registry token is not known'));
    const refused = capabilities.filter((capability) => !grant.allows(capability));
    if (refused.length > 0) {
      return err(
        new ReachError('FORBIDDEN', `token "${grant.name}" may not register: ${refused.join(', ')}`, {
          data: { refused },
        }),
      );
    }
    return ok({ tokenName: grant.name });
  }
}
