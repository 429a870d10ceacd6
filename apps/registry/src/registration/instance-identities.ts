import type { Logger } from 'pino';
import { z } from 'zod';
import { leaseTokenMatches } from '../auth/lease-token.js';
import { KEYS } from '../store/keys.js';
import type { PutOp, RegistryStore } from '../store/store.js';

/** What the registry keeps of an instance id beyond its lease. */
const InstanceIdentity = z.object({
  instance_id: z.string(),
  agent_name: z.string(),
  lease_token_hash: z.string(),
});

/** An identity record, its keys in the order of its stored text. */
const identityOf = (instanceId: string, agentName: string, leaseTokenHash: string) => ({
  instance_id: instanceId,
  agent_name: agentName,
  lease_token_hash: leaseTokenHash,
});

/** Most ids a collection pass examines in one turn of the event loop. */
const IDS_PER_TURN = 1024;

/** Lets queued DNS queries and HTTP requests run between two parts of a pass. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Instance ids that outlive their lease: each registration stores its id's lease-token hash (not
 * leased), so an agent whose lease expired (a frozen store, a long pause) can present its previous id
 * and lease token and get the same id back. Deregistration removes it; the leader collects ids whose
 * instance has been gone longer than the retention.
 */
export class InstanceIdentities {
  // Ids found without a live instance, with when the collector first saw them so (monotonic ms).
  private readonly missingSince = new Map<string, number>();

  constructor(
    private readonly store: RegistryStore,
    private readonly logger: Logger,
  ) {}

  /**
   * The identity record to commit with a registration. Its object goes along as the put's `source`:
   * its three strings are the registration record's own, so the embedded store holds it in ~90 bytes,
   * not as its ~175-byte text (at 100,000 instances, ~8 MB).
   */
  entry(instanceId: string, agentName: string, leaseTokenHash: string): PutOp {
    const source = identityOf(instanceId, agentName, leaseTokenHash);
    return { key: KEYS.identity(instanceId), value: JSON.stringify(source), source };
  }

  /**
   * After a restart: holds the stored identity of a live instance as its object again (as `entry` put
   * it), when its text is exactly the one this registration record makes. Other texts stay as they are.
   */
  holdLoaded(record: { instance_id: string; agent_name: string; lease_token_hash: string }): void {
    if (this.store.keepAsSource === undefined) return;
    const source = identityOf(record.instance_id, record.agent_name, record.lease_token_hash);
    this.store.keepAsSource(KEYS.identity(record.instance_id), JSON.stringify(source), source);
  }

  /** Whether `previous` proves to be the registration that last held the id, for the same agent name. */
  async proves(previous: { instance_id: string; lease_token: string }, agentName: string): Promise<boolean> {
    const value = await this.store.get(KEYS.identity(previous.instance_id));
    if (value === null) return false;
    let parsed: z.infer<typeof InstanceIdentity>;
    try {
      parsed = InstanceIdentity.parse(JSON.parse(value));
    } catch {
      this.logger.warn({ instance_id: previous.instance_id }, 'ignoring an unreadable instance identity');
      return false;
    }
    return (
      parsed.agent_name === agentName && leaseTokenMatches(previous.lease_token, parsed.lease_token_hash)
    );
  }

  /** Forgets an id for good (graceful deregistration: nothing will come back for it). */
  async forget(instanceId: string): Promise<void> {
    await this.store.commit({ deletes: [KEYS.identity(instanceId)] });
  }

  /**
   * One collection pass (leader only): removes identities whose instance has not been live for
   * `retentionMs` of this collector's observation.
   */
  async collect(
    isLive: (instanceId: string) => boolean,
    nowMs: number,
    retentionMs: number,
  ): Promise<number> {
    const stale: string[] = [];
    const seen = new Set<string>();
    // Keys alone: the pass needs the ids, not the records (held as objects, their texts would be made).
    const keys = await this.store.listKeys(KEYS.identitiesPrefix);
    for (let i = 0; i < keys.length; i++) {
      // ~5 µs per id: a pass over 100,000 held DNS answers and the API for ~0.5 s in one turn.
      if (i > 0 && i % IDS_PER_TURN === 0) await yieldToEventLoop();
      const id = keys[i]!.slice(KEYS.identitiesPrefix.length);
      seen.add(id);
      if (isLive(id)) {
        this.missingSince.delete(id);
        continue;
      }
      const since = this.missingSince.get(id) ?? nowMs;
      this.missingSince.set(id, since);
      if (nowMs - since >= retentionMs) stale.push(id);
    }
    for (const id of this.missingSince.keys()) if (!seen.has(id)) this.missingSince.delete(id);
    if (stale.length > 0) {
      await this.store.commit({ deletes: stale.map((id) => KEYS.identity(id)) });
      for (const id of stale) this.missingSince.delete(id);
    }
    return stale.length;
  }
}
