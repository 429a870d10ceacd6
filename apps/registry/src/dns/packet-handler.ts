import { answerQuery } from './answer.js';
import type { AnswerCache } from './answer-cache.js';
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

/** Only plain answers are cached: data, NODATA, NXDOMAIN and refusals. */
const isCacheable = (rcode: number): boolean =>
  rcode === RCODE.NOERROR || rcode === RCODE.NXDOMAIN || rcode === RCODE.REFUSED;

/** SOA RDATA ends with serial, refresh, retry, expire and minimum: 20 octets. */
const SOA_TAIL = 20;
const OPT_RR_SIZE = 11;

/** Where a negative answer's authority SOA keeps its serial (the last RR before any OPT), or -1. */
function serialOffset(query: DnsQuery, sections: Sections, reply: Buffer): number {
  const soaSent =
    sections.answer.length === 0 && sections.authority.length === 1 && reply[8] === 0 && reply[9] === 1;
  if (!soaSent) return -1;
  return reply.length - (query.edns === undefined ? 0 : OPT_RR_SIZE) - SOA_TAIL;
}

function answer(
  snapshot: ZoneSnapshot,
  query: DnsQuery,
  msg: Buffer,
  transport: Transport,
  cache: AnswerCache | undefined,
): Buffer {
  const limit = transport === 'udp' ? udpLimit(query) : MAX_TCP_MESSAGE;
  if (query.edns !== undefined && query.edns.version !== 0) return writeResponse(query, badvers, limit, 0);
  const sections = answerQuery(snapshot, query, limit);
  const reply = writeResponse(query, sections, limit, snapshot.apexWireLength);
  if (cache !== undefined && isCacheable(sections.rcode))
    cache.set(snapshot, msg, transport, reply, sections.owner, serialOffset(query, sections, reply));
  return reply;
}

/**
 * Turns one incoming DNS message into the reply to send, or null when nothing should be sent
 * (shorter than a header, or itself a response). Never throws, whatever the bytes. With a cache,
 * a query asked before under the same snapshot is answered by copying the earlier reply.
 */
export function handleMessage(
  zone: SnapshotProvider,
  msg: Buffer,
  transport: Transport,
  cache?: AnswerCache,
): Buffer | null {
  let snapshot: ZoneSnapshot | undefined;
  if (cache !== undefined && msg.length >= 12) {
    try {
      snapshot = zone.snapshot();
    } catch {
      // Left to the uncached path below, which answers SERVFAIL.
    }
    const hit = snapshot === undefined ? undefined : cache.get(snapshot, msg, transport);
    if (hit !== undefined) return hit;
  }
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
    return answer(snapshot ?? zone.snapshot(), query, msg, transport, cache);
  } catch {
    // A bug of ours, not the client's: say so rather than leave it waiting.
    return writeHeaderOnly(query.id, query.flags, RCODE.SERVFAIL);
  }
}
