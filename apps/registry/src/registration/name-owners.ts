import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import { z } from 'zod';
import { KEYS } from '../store/keys.js';
import type { PutOp, RegistryStore } from '../store/store.js';

/** The durable record binding an agent name to the registry token that first registered it. */
const NameOwner = z.object({ agent_name: z.string(), token: z.string(), bound_at: z.string() });

/** What a registration may do with its agent name. */
export interface NameClaim {
  /** True when this registration binds the name (its put goes into the registration's commit). */
  binds: boolean;
}

/**
 * Agent-name ownership: the first registration of a name under a token binds the name to that token;
 * another token registering it is refused with NAME_OWNED. Owners are cached once read; a name not
 * bound here is looked up in the store, so a binding made by another replica is seen.
 */
export class NameOwners {
  private readonly owners = new Map<string, Promise<string | null>>();

  constructor(private readonly store: RegistryStore) {}

  /** Claims `agentName` for `tokenName`: ok when the token owns it (or binds it now), NAME_OWNED otherwise. */
  async claim(agentName: string, tokenName: string): Promise<Result<NameClaim>> {
    let owner = await this.ownerOf(agentName);
    // Another registration may have claimed the name while the store was read.
    while (owner === null && this.owners.has(agentName)) owner = await this.ownerOf(agentName);
    if (owner === tokenName) return ok({ binds: false });
    if (owner !== null) {
      return err(
        new ReachError(
          'NAME_OWNED',
          `agent name ${agentName} belongs to another registry token; register it with that token or pick another name`,
          { data: { agent_name: agentName } },
        ),
      );
    }
    // Claimed at once, so a concurrent registration of the name under another token is refused.
    this.owners.set(agentName, Promise.resolve(tokenName));
    return ok({ binds: true });
  }

  /** Gives a binding claim back when its registration failed. */
  release(agentName: string): void {
    this.owners.delete(agentName);
  }

  /** The record to commit with the registration that binds the name. */
  entry(agentName: string, tokenName: string, boundAtMs: number): PutOp {
    return {
      key: KEYS.owner(agentName),
      value: JSON.stringify({
        agent_name: agentName,
        token: tokenName,
        bound_at: new Date(boundAtMs).toISOString(),
      }),
    };
  }

  /** The token name owning `agentName`, or null when nobody does yet. */
  ownerOf(agentName: string): Promise<string | null> {
    let owner = this.owners.get(agentName);
    if (!owner) {
      const reading: Promise<string | null> = this.store.get(KEYS.owner(agentName)).then((value) => {
        if (value === null) {
          // Unbound names are not cached: another replica may bind them.
          if (this.owners.get(agentName) === reading) this.owners.delete(agentName);
          return null;
        }
        const parsed = NameOwner.safeParse(JSON.parse(value));
        if (!parsed.success) throw new ReachError('INTERNAL', `unreadable owner record of ${agentName}`);
        return parsed.data.token;
      });
      reading.catch(() => {
        if (this.owners.get(agentName) === reading) this.owners.delete(agentName);
      });
      this.owners.set(agentName, reading);
      owner = reading;
    }
    return owner;
  }
}
