import { DeclarationHistoryEntry } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { KEYS } from '../store/keys.js';
import { VersionVerification } from '../store/records.js';
import type { KeyValue, WatchEvent } from '../store/store.js';
import { contentDigest } from './declaration-content.js';

/** What the book knows of one recorded version. */
export interface VersionState {
  /** The history key of its first recording (the earliest key wins when two replicas recorded it). */
  key: string;
  version: string;
  digest: string;
}

/** The parts of a key under `prefix`: `<agent>/<rest>`. */
function splitKey(prefix: string, key: string): [agent: string, rest: string] | undefined {
  const tail = key.slice(prefix.length);
  const slash = tail.indexOf('/');
  return slash <= 0 ? undefined : [tail.slice(0, slash), tail.slice(slash + 1)];
}

const versionOfHistoryKey = (rest: string): string => rest.slice(rest.indexOf('-') + 1);

/**
 * Every agent's recorded declaration versions, their verification and call counts, kept current from
 * the store's watches on every replica; `preferenceOrder` is computed once per change, not per route.
 */
export class VersionBook {
  private readonly agents = new Map<string, Map<string, VersionState>>();
  // Kept apart from the history: the three watches may deliver in any order.
  private readonly verifications = new Map<string, VersionVerification>();
  private readonly calls = new Map<string, Map<string, number>>();
  private readonly orders = new Map<string, readonly string[]>();
  private readonly listeners = new Set<(agents: readonly string[]) => void>();

  constructor(private readonly logger: Logger) {}

  /** The recorded version, or undefined. */
  get(agentName: string, version: string): VersionState | undefined {
    return this.agents.get(agentName)?.get(version);
  }

  /** The version's verification, or undefined while it is not verified. */
  verificationOf(agentName: string, version: string): VersionVerification | undefined {
    return this.verifications.get(`${agentName}/${version}`);
  }

  /** How many versions of the agent are recorded. */
  count(agentName: string): number {
    return this.agents.get(agentName)?.size ?? 0;
  }

  agentNames(): IterableIterator<string> {
    return this.agents.keys();
  }

  /** The agent's versions, oldest first. */
  versionsOf(agentName: string): VersionState[] {
    const versions = this.agents.get(agentName);
    return versions
      ? [...versions.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      : [];
  }

  /** Versions in routing preference: verified ones newest first, then the unverified newest first. */
  preferenceOrder(agentName: string): readonly string[] {
    let order = this.orders.get(agentName);
    if (!order) {
      const newestFirst = this.versionsOf(agentName).reverse();
      order = [
        ...newestFirst.filter((v) => this.verificationOf(agentName, v.version)).map((v) => v.version),
        ...newestFirst.filter((v) => !this.verificationOf(agentName, v.version)).map((v) => v.version),
      ];
      this.orders.set(agentName, order);
    }
    return order;
  }

  /** Total successful calls counted for a version over every replica. */
  callsOf(agentName: string, version: string): number {
    let total = 0;
    for (const n of this.calls.get(`${agentName}/${version}`)?.values() ?? []) total += n;
    return total;
  }

  /** Successful calls one replica counted for a version. */
  replicaCallsOf(agentName: string, version: string, replicaId: string): number {
    return this.calls.get(`${agentName}/${version}`)?.get(replicaId) ?? 0;
  }

  /** Calls `listener` with the agents whose versions or verification changed; returns an unsubscribe function. */
  subscribe(listener: (agents: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Applies a history snapshot or watch batch (`/reach/declarations/`). */
  applyHistory(events: readonly WatchEvent[]): void {
    const changed = new Set<string>();
    for (const event of events) {
      const parts = splitKey(KEYS.declarationsPrefix, event.key);
      if (!parts) continue;
      const [agent, rest] = parts;
      if (event.type === 'delete') {
        const versions = this.agents.get(agent);
        const version = versionOfHistoryKey(rest);
        if (versions?.get(version)?.key === event.key) {
          versions.delete(version);
          if (versions.size === 0) this.agents.delete(agent);
          changed.add(agent);
        }
        continue;
      }
      const entry = this.parseHistory(event.key, event.value);
      if (!entry) continue;
      let versions = this.agents.get(agent);
      if (!versions) {
        versions = new Map();
        this.agents.set(agent, versions);
      }
      const known = versions.get(entry.version);
      if (known && known.key <= event.key) continue;
      versions.set(entry.version, {
        key: event.key,
        version: entry.version,
        digest: contentDigest(entry.declaration),
      });
      changed.add(agent);
    }
    this.changed(changed);
  }

  /** Applies a verification snapshot or watch batch (`/reach/verified/`). */
  applyVerifications(events: readonly WatchEvent[]): void {
    const changed = new Set<string>();
    for (const event of events) {
      const parts = splitKey(KEYS.verificationsPrefix, event.key);
      if (!parts) continue;
      const [agent, version] = parts;
      if (event.type === 'delete') this.verifications.delete(`${agent}/${version}`);
      else {
        const parsed = this.parseVerification(event.key, event.value);
        if (!parsed) continue;
        this.verifications.set(`${agent}/${version}`, parsed);
      }
      changed.add(agent);
    }
    this.changed(changed);
  }

  /** Applies a call-count snapshot or watch batch (`/reach/version-calls/`). */
  applyCalls(events: readonly WatchEvent[]): void {
    for (const event of events) {
      const parts = splitKey(KEYS.versionCallsPrefix, event.key);
      if (!parts) continue;
      const [agent, rest] = parts;
      const slash = rest.indexOf('/');
      if (slash <= 0) continue;
      const id = `${agent}/${rest.slice(0, slash)}`;
      const replica = rest.slice(slash + 1);
      let counts = this.calls.get(id);
      const count = event.type === 'put' ? Number.parseInt(event.value, 10) : Number.NaN;
      if (Number.isSafeInteger(count) && count >= 0) {
        if (!counts) {
          counts = new Map();
          this.calls.set(id, counts);
        }
        counts.set(replica, count);
      } else if (counts) {
        counts.delete(replica);
        if (counts.size === 0) this.calls.delete(id);
      }
    }
  }

  /** Loads one prefix's snapshot as puts. */
  static asPuts(snapshot: readonly KeyValue[]): WatchEvent[] {
    return snapshot.map(({ key, value }) => ({ type: 'put', key, value }));
  }

  private changed(agents: ReadonlySet<string>): void {
    if (agents.size === 0) return;
    for (const agent of agents) this.orders.delete(agent);
    const list = [...agents];
    for (const listener of this.listeners) listener(list);
  }

  private parseHistory(key: string, value: string): DeclarationHistoryEntry | undefined {
    try {
      const parsed = DeclarationHistoryEntry.safeParse(JSON.parse(value));
      if (parsed.success) return parsed.data;
    } catch {
      // fall through to the warning
    }
    this.logger.warn({ key }, 'ignoring an unreadable declaration history entry');
    return undefined;
  }

  private parseVerification(key: string, value: string): VersionVerification | undefined {
    try {
      const parsed = VersionVerification.safeParse(JSON.parse(value));
      if (parsed.success) return parsed.data;
    } catch {
      // fall through to the warning
    }
    this.logger.warn({ key }, 'ignoring an unreadable version verification');
    return undefined;
  }
}
