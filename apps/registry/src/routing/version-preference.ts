import type { InstanceSource } from '../instances/instance-source.js';
import type { InstanceRecord } from '../store/records.js';
import { SCORE } from './score.js';

/** What routing needs from the declaration log (the registry's `DeclarationLog` has it). */
export interface DeclarationVersions {
  /** An agent's versions in preference order: verified newest first, then unverified newest first. */
  preferenceOrder(agentName: string): readonly string[];
  /** Calls `listener` when agents' versions or their verification changed; returns an unsubscribe. */
  subscribe(listener: (agents: readonly string[]) => void): () => void;
  /** Counts one successful call served by an instance of a version (toward its verification). */
  countSuccess(agentName: string, version: string): void;
}

/**
 * Which declaration version of each agent routing prefers: the first in the log's preference order
 * that has a live instance. Kept per agent and recomputed only when its instances or versions change,
 * so the hot path is two map lookups.
 */
export class VersionPreference {
  // Live instances per agent and version (counted from the source's records: no map per instance).
  private readonly live = new Map<string, Map<string, number>>();
  private readonly preferred = new Map<string, string | null>();
  private readonly stops: Array<() => void> = [];

  constructor(
    source: InstanceSource,
    private readonly versions: DeclarationVersions,
    onChange: () => void,
  ) {
    for (const record of source.all()) this.add(record);
    this.stops.push(
      source.subscribe((changes) => {
        for (const record of changes.replaced) this.remove(record);
        for (const record of changes.put) this.add(record);
      }),
      versions.subscribe((agents) => {
        for (const agent of agents) this.preferred.delete(agent);
        onChange();
      }),
    );
  }

  /** 1 for the agent's preferred version (or when it has none), `SCORE.otherVersion` otherwise. */
  factor(agentName: string, version: string): number {
    const preferred = this.preferredOf(agentName);
    return preferred === null || preferred === version ? 1 : SCORE.otherVersion;
  }

  /** The agent's preferred live version; null when no live version is in its history. */
  preferredOf(agentName: string): string | null {
    let preferred = this.preferred.get(agentName);
    if (preferred === undefined) {
      const live = this.live.get(agentName);
      preferred = null;
      if (live && live.size > 1) {
        for (const version of this.versions.preferenceOrder(agentName)) {
          if (live.has(version)) {
            preferred = version;
            break;
          }
        }
      }
      this.preferred.set(agentName, preferred);
    }
    return preferred;
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private add(record: InstanceRecord): void {
    const agent = record.agent_name;
    const version = record.declaration.version;
    let versions = this.live.get(agent);
    if (!versions) {
      versions = new Map();
      this.live.set(agent, versions);
    }
    const before = versions.size;
    versions.set(version, (versions.get(version) ?? 0) + 1);
    if (versions.size !== before) this.preferred.delete(agent);
  }

  /** Takes out a record `add` counted (the source hands every record that leaves it back once). */
  private remove(record: InstanceRecord): void {
    const agent = record.agent_name;
    const version = record.declaration.version;
    const versions = this.live.get(agent);
    const count = versions?.get(version) ?? 0;
    if (!versions) return;
    if (count > 1) versions.set(version, count - 1);
    else {
      versions.delete(version);
      if (versions.size === 0) this.live.delete(agent);
      this.preferred.delete(agent);
    }
  }
}
