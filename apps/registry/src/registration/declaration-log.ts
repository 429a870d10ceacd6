import type { Clock } from '@agent-reach/sdk/clock';
import {
  type Declaration,
  type DeclarationHistoryEntry,
  err,
  ok,
  ReachError,
  type Result,
} from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { followPrefix } from '../store/follow-prefix.js';
import { KEYS } from '../store/keys.js';
import type { VersionVerification } from '../store/records.js';
import { deleteInCommits, type PutOp, type RegistryStore, type Watch } from '../store/store.js';
import { contentDigest } from './declaration-content.js';
import { historyEntries, type StoredHistory } from './history-entries.js';
import { VersionBook } from './version-book.js';

/** How the declaration log is built. */
export interface DeclarationLogOptions {
  store: RegistryStore;
  logger: Logger;
  clock: Clock;
  /** This replica's name: its call counts go under their own key. */
  replicaId: string;
  /** Successful calls that verify a version; 0 turns verification by calls off. @default 20 */
  verifyAfterCalls?: number;
  /** How often counted calls are written to the store. @default 1000 */
  flushMs?: number;
}

/** The verdict on registering a declaration: whether its version is new. */
export interface VersionCheck {
  isNew: boolean;
}

const id = (agentName: string, version: string) => `${agentName}/${version}`;
// History keys end in `<15-digit ms>-<version>`.
const lastPart = (key: string) => key.slice(key.lastIndexOf('/') + 1);
const recordedMsOf = (key: string) => Number(lastPart(key).slice(0, 15));
const versionOfHistoryKey = (key: string) => {
  const last = lastPart(key);
  return last.slice(last.indexOf('-') + 1);
};

/**
 * Durable declaration history per agent (never bound to a lease): versions are immutable, a later
 * version needs a change reason, and a version is verified by its successful calls or an operator.
 * Every replica follows the history, verifications and call counts through store watches.
 */
export class DeclarationLog {
  readonly book: VersionBook;
  // Versions this replica let through whose history entry the watch has not delivered yet: digest by id.
  private readonly pending = new Map<string, string>();
  // This replica's successful-call counts per unverified version, and which of them are not written yet.
  private readonly counted = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private readonly watches: Watch[] = [];
  private stopFlush: (() => void) | undefined;
  private flushing: Promise<void> | undefined;

  private constructor(private readonly options: DeclarationLogOptions) {
    this.book = new VersionBook(options.logger);
    this.book.subscribe((agents) => {
      for (const agent of agents) {
        for (const key of this.pending.keys())
          if (key.startsWith(`${agent}/`) && this.book.get(agent, key.slice(agent.length + 1)))
            this.pending.delete(key);
      }
    });
  }

  /** Follows the history, verifications and call counts; resolves once all three snapshots are loaded. */
  static async start(options: DeclarationLogOptions): Promise<DeclarationLog> {
    const log = new DeclarationLog(options);
    const { store } = options;
    const { book } = log;
    try {
      log.watches.push(
        await followPrefix(store, KEYS.declarationsPrefix, {
          load: (snapshot) => book.applyHistory(VersionBook.asPuts(snapshot)),
          apply: (events) => book.applyHistory(events),
        }),
        await followPrefix(store, KEYS.verificationsPrefix, {
          load: (snapshot) => book.applyVerifications(VersionBook.asPuts(snapshot)),
          apply: (events) => book.applyVerifications(events),
        }),
        await followPrefix(store, KEYS.versionCallsPrefix, {
          load: (snapshot) => book.applyCalls(VersionBook.asPuts(snapshot)),
          apply: (events) => book.applyCalls(events),
        }),
      );
    } catch (error) {
      await log.close();
      throw error;
    }
    log.stopFlush = options.clock.every(options.flushMs ?? 1000, () => {
      log
        .flush()
        .catch((cause: unknown) => options.logger.warn({ err: cause }, 'version call counts not written'));
    });
    return log;
  }

  /**
   * Checks a declaration against its agent's history: ok `{isNew}` (true exactly once per new version,
   * so concurrent registrations record it once), DECLARATION_VERSION_CHANGED when the version is
   * recorded with other content, CHANGE_REASON_REQUIRED for a later version without `change_reason`.
   * `release` gives a new version back when its registration fails.
   */
  async check(declaration: Declaration): Promise<Result<VersionCheck>> {
    const { agent_name: agent, version } = declaration;
    const digest = contentDigest(declaration);
    let verdict = this.verdict(declaration, digest, undefined);
    if (verdict === undefined) {
      // Unknown here: another replica may have recorded it before this replica's watch delivered it.
      const stored = await this.storedDigests(agent);
      verdict = this.verdict(declaration, digest, stored);
      if (verdict === undefined) {
        this.pending.set(id(agent, version), digest);
        return ok({ isNew: true });
      }
    }
    return verdict;
  }

  /** Gives back a new version's claim when its registration failed. */
  release(declaration: Declaration): void {
    const key = id(declaration.agent_name, declaration.version);
    if (this.pending.get(key) === contentDigest(declaration)) this.pending.delete(key);
  }

  /** The history entry to commit with the registration; `changedBy` is the registering token's name. */
  entry(declaration: Declaration, recordedAtMs: number, changedBy: string | null = null): PutOp {
    const entry: StoredHistory = {
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

  /** Every recorded version of an agent, oldest first, with its verification; read from the store. */
  async history(agentName: string): Promise<DeclarationHistoryEntry[]> {
    const { store, logger } = this.options;
    const [history, verified, calls] = await Promise.all([
      store.list(KEYS.declarationsOf(agentName)),
      store.list(KEYS.verificationsOf(agentName)),
      store.list(KEYS.versionCallsOf(agentName)),
    ]);
    return historyEntries({ history, verified, calls }, logger);
  }

  /** Every agent's history (agents by name, each oldest first), e.g. for the governance report. */
  async allHistory(): Promise<DeclarationHistoryEntry[]> {
    const { store, logger } = this.options;
    const [history, verified, calls] = await Promise.all([
      store.list(KEYS.declarationsPrefix),
      store.list(KEYS.verificationsPrefix),
      store.list(KEYS.versionCallsPrefix),
    ]);
    return historyEntries({ history, verified, calls }, logger);
  }

  /**
   * Marks a recorded version verified by an operator (`by`: the token name, `open` without tokens);
   * NOT_FOUND when the version was never recorded. A version already verified stays as it was.
   */
  async verify(
    agentName: string,
    version: string,
    by: string,
    reason?: string,
  ): Promise<DeclarationHistoryEntry> {
    const find = async () => (await this.history(agentName)).find((entry) => entry.version === version);
    const entry = await find();
    if (!entry) {
      throw new ReachError('NOT_FOUND', `agent ${agentName} has no recorded declaration version ${version}`, {
        data: { agent_name: agentName, version },
      });
    }
    if (entry.verified) return entry;
    await this.putVerification(agentName, version, by, reason ?? `marked verified by ${by}`);
    return (await find()) ?? entry;
  }

  /** Counts one successful call served by an instance of `version` (the hot path: a map update). */
  countSuccess(agentName: string, version: string): void {
    if ((this.options.verifyAfterCalls ?? 20) <= 0) return;
    if (!this.book.get(agentName, version) || this.book.verificationOf(agentName, version)) return;
    const key = id(agentName, version);
    const own = this.counted.get(key) ?? this.book.replicaCallsOf(agentName, version, this.options.replicaId);
    this.counted.set(key, own + 1);
    this.dirty.add(key);
  }

  /** Writes this replica's new call counts and verifies the versions whose total reached the threshold. */
  flush(): Promise<void> {
    this.flushing ??= this.writeCounts().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /**
   * Removes versions recorded more than `keepMs` before `wallNowMs` (history, verification, call
   * counts), except each agent's newest version, its newest verified one and every version `isLive`
   * says an instance runs; returns how many versions went. The leader runs it now and then.
   */
  async collect(
    isLive: (agentName: string, version: string) => boolean,
    wallNowMs: number,
    keepMs: number,
  ): Promise<number> {
    const { store } = this.options;
    let removed = 0;
    for (const agent of [...this.book.agentNames()]) {
      const versions = this.book.versionsOf(agent);
      const newest = versions.at(-1)?.version;
      const newestVerified = versions.findLast((v) => this.book.verificationOf(agent, v.version))?.version;
      const old = versions.filter(
        (v) =>
          v.version !== newest &&
          v.version !== newestVerified &&
          recordedMsOf(v.key) < wallNowMs - keepMs &&
          !isLive(agent, v.version),
      );
      if (old.length === 0) continue;
      const [history, calls] = await Promise.all([
        store.list(KEYS.declarationsOf(agent)),
        store.list(KEYS.versionCallsOf(agent)),
      ]);
      for (const { version } of old) {
        const deletes = [
          ...history.filter((kv) => versionOfHistoryKey(kv.key) === version).map((kv) => kv.key),
          ...calls
            .filter((kv) => kv.key.startsWith(`${KEYS.versionCallsOf(agent)}${version}/`))
            .map((kv) => kv.key),
          KEYS.verification(agent, version),
        ];
        await deleteInCommits(store, deletes);
        this.counted.delete(id(agent, version));
        removed += 1;
      }
    }
    if (removed > 0) this.options.logger.info({ removed }, 'old declaration versions removed');
    return removed;
  }

  /** Versions in routing preference for an agent: verified newest first, then unverified newest first. */
  preferenceOrder(agentName: string): readonly string[] {
    return this.book.preferenceOrder(agentName);
  }

  /** Calls `listener` when an agent's versions or their verification changed; returns an unsubscribe. */
  subscribe(listener: (agents: readonly string[]) => void): () => void {
    return this.book.subscribe(listener);
  }

  async close(): Promise<void> {
    this.stopFlush?.();
    await this.flushing?.catch(() => undefined);
    await Promise.all(this.watches.splice(0).map((watch) => watch.close()));
  }

  // The verdict from what is known (the book, this replica's pending claims, `stored`); undefined: new.
  private verdict(
    declaration: Declaration,
    digest: string,
    stored: ReadonlyMap<string, string> | undefined,
  ): Result<VersionCheck> | undefined {
    const { agent_name: agent, version } = declaration;
    const pending = this.pending.get(id(agent, version));
    const recorded = this.book.get(agent, version)?.digest ?? stored?.get(version) ?? pending;
    if (recorded !== undefined) {
      if (recorded === digest) return ok({ isNew: false });
      return err(
        new ReachError(
          'DECLARATION_VERSION_CHANGED',
          `${agent} version ${version} is recorded with other content; a version never changes: give the changed declaration a new version and a change_reason`,
          { data: { agent_name: agent, version, recorded_sha256: recorded, offered_sha256: digest } },
        ),
      );
    }
    if (stored === undefined) return undefined;
    const others =
      this.book.count(agent) > 0 ||
      stored.size > 0 ||
      [...this.pending.keys()].some((key) => key.startsWith(`${agent}/`));
    if (others && !declaration.change_reason) {
      return err(
        new ReachError(
          'CHANGE_REASON_REQUIRED',
          `${agent} version ${version} is a new version of a recorded agent: say why it changed in change_reason`,
          { data: { agent_name: agent, version } },
        ),
      );
    }
    return undefined;
  }

  // The content digest of each version recorded in the store (its earliest entry).
  private async storedDigests(agentName: string): Promise<Map<string, string>> {
    const entries = historyEntries(
      { history: await this.options.store.list(KEYS.declarationsOf(agentName)), verified: [], calls: [] },
      this.options.logger,
    );
    return new Map(entries.map((entry) => [entry.version, entry.content_sha256 ?? '']));
  }

  private async putVerification(
    agentName: string,
    version: string,
    by: string,
    reason: string,
  ): Promise<void> {
    const record: VersionVerification = {
      agent_name: agentName,
      version,
      verified_at: new Date(this.options.clock.wallNow()).toISOString(),
      verified_by: by,
      reason,
    };
    await this.options.store.commit({
      puts: [{ key: KEYS.verification(agentName, version), value: JSON.stringify(record) }],
    });
    // Seen at once here; the watch brings it to the other replicas.
    this.book.applyVerifications([
      { type: 'put', key: KEYS.verification(agentName, version), value: JSON.stringify(record) },
    ]);
    this.options.logger.info(
      { agent_name: agentName, version, verified_by: by, reason },
      'declaration version verified',
    );
  }

  private async writeCounts(): Promise<void> {
    const { store, replicaId } = this.options;
    const threshold = this.options.verifyAfterCalls ?? 20;
    const keys = [...this.dirty];
    this.dirty.clear();
    for (const key of keys) {
      const slash = key.indexOf('/');
      const agent = key.slice(0, slash);
      const version = key.slice(slash + 1);
      const own = this.counted.get(key) ?? 0;
      try {
        await store.commit({
          puts: [{ key: KEYS.versionCalls(agent, version, replicaId), value: String(own) }],
        });
      } catch (error) {
        this.dirty.add(key);
        throw error;
      }
      this.book.applyCalls([
        { type: 'put', key: KEYS.versionCalls(agent, version, replicaId), value: String(own) },
      ]);
      const total = this.book.callsOf(agent, version);
      if (total >= threshold && !this.book.verificationOf(agent, version)) {
        await this.putVerification(agent, version, 'calls', `served ${total} successful calls`);
        this.counted.delete(key);
      }
    }
  }
}
