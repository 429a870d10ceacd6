import { type Declaration, DeclarationHistoryEntry } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { KEYS } from '../store/keys.js';
import type { PutOp, RegistryStore } from '../store/store.js';

/** The version part of a declaration-history key (`…/<15-digit ms>-<version>`). */
function versionOfKey(key: string): string {
  const last = key.slice(key.lastIndexOf('/') + 1);
  return last.slice(last.indexOf('-') + 1);
}

/** Durable declaration history per agent (never bound to a lease), with a cache of the versions seen. */
export class DeclarationLog {
  private readonly versions = new Map<string, Promise<Set<string>>>();
  private everyVersion: Promise<Map<string, Set<string>>> | undefined;

  constructor(
    private readonly store: RegistryStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Claims `declaration.version` as new for its agent: true exactly once per version, so concurrent
   * registrations record it once. `release` gives the claim back when the registration fails.
   */
  async claim(declaration: Declaration): Promise<boolean> {
    const known = await this.known(declaration.agent_name);
    if (known.has(declaration.version)) return false;
    known.add(declaration.version);
    return true;
  }

  async release(declaration: Declaration): Promise<void> {
    (await this.known(declaration.agent_name)).delete(declaration.version);
  }

  /** The history entry to commit with the registration; `changedBy` is the registering token's name. */
  entry(declaration: Declaration, recordedAtMs: number, changedBy: string | null = null): PutOp {
    const entry: DeclarationHistoryEntry = {
      agent_name: declaration.agent_name,
      version: declaration.version,
      change_reason: declaration.change_reason ?? null,
      recorded_at: new Date(recordedAtMs).toISOString(),
      changed_by: changedBy,
      declaration,
    };
    return {
      key: KEYS.declaration(declaration.agent_name, recordedAtMs, declaration.version),
      value: JSON.stringify(entry),
    };
  }

  /** Every recorded version of an agent, oldest first; a version recorded twice (two replicas) shows once. */
  async history(agentName: string): Promise<DeclarationHistoryEntry[]> {
    const seen = new Set<string>();
    const entries: DeclarationHistoryEntry[] = [];
    for (const { key, value } of await this.store.list(KEYS.declarationsOf(agentName))) {
      const parsed = this.parse(key, value);
      if (!parsed || seen.has(parsed.version)) continue;
      seen.add(parsed.version);
      entries.push(parsed);
    }
    return entries;
  }

  private known(agentName: string): Promise<Set<string>> {
    let known = this.versions.get(agentName);
    if (!known) {
      // One read of the whole history, the first time any agent registers: after it, an agent never
      // seen has no history, so a new agent name costs no store read (on the embedded store a list is
      // a scan of every key, ~1.7 ms at 10,000 instances).
      this.everyVersion ??= this.readEveryVersion();
      const all = this.everyVersion;
      known = all.then((byAgent) => byAgent.get(agentName) ?? new Set<string>());
      // A failed read is not cached: the next registration tries again.
      known.catch(() => {
        this.versions.delete(agentName);
        if (this.everyVersion === all) this.everyVersion = undefined;
      });
      this.versions.set(agentName, known);
    }
    return known;
  }

  /** Every recorded version, by agent name. */
  private async readEveryVersion(): Promise<Map<string, Set<string>>> {
    const byAgent = new Map<string, Set<string>>();
    for (const { key } of await this.store.list(KEYS.declarationsPrefix)) {
      const rest = key.slice(KEYS.declarationsPrefix.length);
      const agentName = rest.slice(0, rest.indexOf('/'));
      let versions = byAgent.get(agentName);
      if (!versions) {
        versions = new Set();
        byAgent.set(agentName, versions);
      }
      versions.add(versionOfKey(key));
    }
    return byAgent;
  }

  private parse(key: string, value: string): DeclarationHistoryEntry | undefined {
    try {
      const parsed = DeclarationHistoryEntry.safeParse(JSON.parse(value));
      if (parsed.success) return parsed.data;
    } catch {
      // fall through to the warning
    }
    this.logger.warn({ key }, 'ignoring an unreadable declaration history entry');
    return undefined;
  }
}
