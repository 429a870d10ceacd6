import { ReachError } from '@agent-reach/sdk/protocol';
import type { LeaseId } from '../store.js';
import { type StoredValue, valueText } from './held-value.js';

/** A put as stored in the journal: key, value and, when bound, the lease id. */
export type JournalPut = [key: string, value: string, lease?: LeaseId];

/** A put of a snapshot: its value as the store keeps it, made text as its chunk is written. */
export type SnapshotPut = [key: string, value: StoredValue, lease?: LeaseId];

/** One line of the journal. A `snap` line resets the state; the lines after it build on it. */
export type JournalRecord =
  | { t: 'snap'; next: number; leases: Array<[LeaseId, number]> }
  | { t: 'grant'; l: LeaseId; ttl: number }
  | { t: 'commit'; p?: JournalPut[]; d?: string[] }
  | { t: 'revoke'; l: LeaseId };

/** The whole durable state at one moment, captured synchronously and written out later. */
export interface JournalSnapshot {
  nextLease: number;
  leases: Array<[LeaseId, number]>;
  kv: SnapshotPut[];
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isPut = (v: unknown): v is JournalPut =>
  Array.isArray(v) && (v.length === 2 || v.length === 3) && v.every(isString);
const isLeaseEntry = (v: unknown): v is [LeaseId, number] =>
  Array.isArray(v) && v.length === 2 && isString(v[0]) && typeof v[1] === 'number';

/** Parses one journal line; null when it is not a well-formed record. */
export function parseRecord(line: string): JournalRecord | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as Record<string, unknown>;
  switch (r.t) {
    case 'snap':
      return typeof r.next === 'number' && Array.isArray(r.leases) && r.leases.every(isLeaseEntry)
        ? (r as JournalRecord)
        : null;
    case 'grant':
      return isString(r.l) && typeof r.ttl === 'number' && r.ttl > 0 ? (r as JournalRecord) : null;
    case 'revoke':
      return isString(r.l) ? (r as JournalRecord) : null;
    case 'commit':
      return (r.p === undefined || (Array.isArray(r.p) && r.p.every(isPut))) &&
        (r.d === undefined || isStringArray(r.d))
        ? (r as JournalRecord)
        : null;
    default:
      return null;
  }
}

/**
 * Parses a whole journal. A torn last line (a crash mid-write) is dropped; a bad line anywhere
 * else means the file is damaged, which is refused with a clear error rather than half-loaded.
 */
export function parseJournal(text: string, file: string): { records: JournalRecord[]; torn: boolean } {
  const lines = text.split('\n');
  const records: JournalRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const record = parseRecord(line);
    if (record !== null) {
      records.push(record);
      continue;
    }
    const isTail = lines.slice(i + 1).every((rest) => rest === '');
    if (isTail) return { records, torn: true };
    throw new ReachError('STORE_UNAVAILABLE', `registry journal ${file} is damaged at line ${i + 1}`, {
      data: { file, line: i + 1 },
    });
  }
  return { records, torn: false };
}

/** Serialises a snapshot as journal lines, in chunks so a large state never becomes one huge string. */
export function* snapshotLines(snapshot: JournalSnapshot, chunk = 512): Generator<string> {
  yield `${JSON.stringify({ t: 'snap', next: snapshot.nextLease, leases: snapshot.leases })}\n`;
  for (let i = 0; i < snapshot.kv.length; i += chunk) {
    const p = snapshot.kv
      .slice(i, i + chunk)
      .map(
        ([key, value, lease]): JournalPut =>
          lease === undefined ? [key, valueText(value)] : [key, valueText(value), lease],
      );
    yield `${JSON.stringify({ t: 'commit', p })}\n`;
  }
}
