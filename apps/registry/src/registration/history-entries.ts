import { DeclarationHistoryEntry } from '@agent-reach/sdk/protocol';
import type { Logger } from 'pino';
import { KEYS } from '../store/keys.js';
import { VersionVerification } from '../store/records.js';
import type { KeyValue } from '../store/store.js';
import { contentDigest } from './declaration-content.js';

/** A history entry as stored: the wire entry without what is derived or kept under other keys. */
export type StoredHistory = Pick<
  DeclarationHistoryEntry,
  'agent_name' | 'version' | 'change_reason' | 'recorded_at' | 'changed_by' | 'declaration'
>;

/** The store's records of declaration versions, each list sorted by key. */
export interface HistoryRecords {
  history: readonly KeyValue[];
  verified: readonly KeyValue[];
  calls: readonly KeyValue[];
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** `<agent>/<version>` of a verification or call-count key. */
function versionIdOf(prefix: string, key: string): string {
  const [agent, version] = key.slice(prefix.length).split('/');
  return `${agent}/${version}`;
}

/**
 * The wire history from the store's records: one entry per (agent, version), its earliest recording
 * (a version two replicas recorded at once shows once), with its verification and counted calls.
 */
export function historyEntries(records: HistoryRecords, logger: Logger): DeclarationHistoryEntry[] {
  const verifications = new Map<string, VersionVerification>();
  for (const { key, value } of records.verified) {
    const parsed = VersionVerification.safeParse(parseJson(value));
    if (parsed.success) verifications.set(versionIdOf(KEYS.verificationsPrefix, key), parsed.data);
    else logger.warn({ key }, 'ignoring an unreadable version verification');
  }
  const calls = new Map<string, number>();
  for (const { key, value } of records.calls) {
    const count = Number.parseInt(value, 10);
    if (!Number.isSafeInteger(count) || count < 0) continue;
    const id = versionIdOf(KEYS.versionCallsPrefix, key);
    calls.set(id, (calls.get(id) ?? 0) + count);
  }
  const seen = new Set<string>();
  const entries: DeclarationHistoryEntry[] = [];
  for (const { key, value } of records.history) {
    const parsed = DeclarationHistoryEntry.safeParse(parseJson(value));
    if (!parsed.success) {
      logger.warn({ key }, 'ignoring an unreadable declaration history entry');
      continue;
    }
    const entry = parsed.data;
    const id = `${entry.agent_name}/${entry.version}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const verification = verifications.get(id);
    entries.push({
      ...entry,
      content_sha256: contentDigest(entry.declaration),
      verified: verification !== undefined,
      verified_at: verification?.verified_at ?? null,
      verified_by: verification?.verified_by ?? null,
      verified_reason: verification?.reason ?? null,
      successful_calls: calls.get(id) ?? 0,
    });
  }
  return entries;
}
