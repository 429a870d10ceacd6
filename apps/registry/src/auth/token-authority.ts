import { createHash } from 'node:crypto';
import type { TokenRight } from '@agent-reach/config';
import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import type { ResolvedToken } from '../config.js';
import { type CapabilityMatcher, compileGrant } from './capability-pattern.js';
import { bearerToken } from './lease-token.js';

interface Grant {
  name: string;
  allows: CapabilityMatcher;
  /** Agent-name patterns (same syntax as capability patterns). */
  names: CapabilityMatcher;
  rights: ReadonlySet<TokenRight>;
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Who made a write: the configured token's name, or null on the open (tokenless) default. */
export interface Caller {
  tokenName: string | null;
}

/** Checks registry tokens: their rights, the capabilities and agent names each may register. */
export class TokenAuthority {
  // Keyed by the token's hash so the lookup never compares secrets byte by byte.
  private readonly grants = new Map<string, Grant>();

  constructor(tokens: readonly ResolvedToken[]) {
    for (const token of tokens) {
      this.grants.set(sha256(token.token), {
        name: token.name,
        allows: compileGrant(token.capabilities),
        names: compileGrant(token.agentNames ?? ['*']),
        rights: new Set(token.rights ?? ['register', 'report_outcomes']),
      });
    }
  }

  /** True when no tokens are configured: writes are open (embedded default on loopback). */
  get open(): boolean {
    return this.grants.size === 0;
  }

  /**
   * Allows registering `capabilities` (and, when given, `agentName`) with the `Authorization` header,
   * or says why not.
   */
  authorize(
    authorization: string | undefined,
    capabilities: readonly string[],
    agentName?: string,
  ): Result<Caller> {
    const found = this.grantOf(authorization, 'register', 'registration');
    if (!found.ok) return found;
    const grant = found.value;
    if (grant === null) return ok({ tokenName: null });
    if (agentName !== undefined && !grant.names(agentName)) {
      return err(
        new ReachError('FORBIDDEN', `token "${grant.name}" may not register agent name ${agentName}`, {
          data: { agent_name: agentName },
        }),
      );
    }
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

  /** Allows reporting call outcomes: the caller's identity, or why not. */
  authorizeOutcomes(authorization: string | undefined): Result<Caller> {
    const found = this.grantOf(authorization, 'report_outcomes', 'reporting outcomes');
    if (!found.ok) return found;
    return ok({ tokenName: found.value?.name ?? null });
  }

  /** Allows marking declaration versions verified (the `verify_declarations` right): the caller, or why not. */
  authorizeVerify(authorization: string | undefined): Result<Caller> {
    const found = this.grantOf(authorization, 'verify_declarations', 'verifying a declaration version');
    if (!found.ok) return found;
    return ok({ tokenName: found.value?.name ?? null });
  }

  // The grant of the header's token when it has `right`; null on the open default.
  private grantOf(authorization: string | undefined, right: TokenRight, what: string): Result<Grant | null> {
    if (this.open) return ok(null);
    const token = bearerToken(authorization);
    if (token === undefined) {
      return err(new ReachError('UNAUTHORIZED', `${what} needs Authorization: Bearer <registry token>`));
    }
    const grant = this.grants.get(sha256(token));
    if (!grant) return err(new ReachError('UNAUTHORIZED', 'the registry token is not known'));
    if (!grant.rights.has(right)) {
      return err(
        new ReachError('FORBIDDEN', `token "${grant.name}" lacks the ${right} right`, { data: { right } }),
      );
    }
    return ok(grant);
  }
}
