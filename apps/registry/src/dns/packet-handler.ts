import { answerQuery } from './answer.js';
import { type DnsQuery, parseQuery, RCODE } from './query-parser.js';
import {
  MAX_TCP_MESSAGE,
  type Sections,
  udpLimit,
  writeHeaderOnly,
  writeResponse,
} from './response-writer.js';
import type { Transport } from './transport.js';
import type { ZoneSnapshot } from './zone-snapshot.js';

/** Anything that can hand out the current zone snapshot (a Zone). */
export interface SnapshotProvider {
  snapshot(): ZoneSnapshot;
}

export type { Transport } from './transport.js';

const BADVERS = 16;

const badvers: Sections = { rcode: BADVERS, authoritative: false, answer: [], authority: [], additional: [] };

function answer(snapshot: ZoneSnapshot, query: DnsQuery, transport: Transport): Buffer {
  const limit = transport === 'udp' ? udpLimit(query) : MAX_TCP_MESSAGE;
  if (query.edns !== undefined && query.edns.version !== 0) return writeResponse(query, badvers, limit, 0);
  const sections = answerQuery(snapshot, query, limit);
  return writeResponse(query, sections, limit, snapshot.apexWireLength);
}

/**
 * Turns one incoming DNS message into the reply to send, or null when nothing should be sent
 * (shorter than a header, or itself a response). Never throws, whatever the bytes. Every reply is
 * written afresh from the zone's pre-encoded RRsets: there is no answer cache (docs/registry.md,
 * "No answer cache").
 */
export function handleMessage(zone: SnapshotProvider, msg: Buffer, transport: Transport): Buffer | null {
  let parsed: ReturnType<typeof parseQuery>;
  try {
    parsed = parseQuery(msg);
  } catch {
    return msg.length >= 12 ? writeHeaderOnly(msg.readUInt16BE(0), msg.readUInt16BE(2), RCODE.FORMERR) : null;
  }
  if (parsed.kind === 'drop') return null;
  if (parsed.kind === 'error') return writeHeaderOnly(parsed.id, parsed.flags, parsed.rcode);
  const query = parsed;
  try {
    return answer(zone.snapshot(), query, transport);
  } catch {
    // A bug of ours, not the client's: say so rather than leave it waiting.
    return writeHeaderOnly(query.id, query.flags, RCODE.SERVFAIL);
  }
}
