import { canonicalName, formatSvcbPresentation, parseRdataTokens } from './svcb-presentation.js';
import { tokenizeRecord } from './svcb-tokenize.js';
import { invalidSvcb, type SvcbRecord, type SvcbRrType } from './svcb-types.js';

/** One SVCB/HTTPS resource record as a zone file states it. */
export interface SvcbZoneRecord {
  /** Owner name, absolute (`_planning._a2a._agents.agents.internal.`). */
  owner: string;
  /** TTL in seconds, when the line gives one. */
  ttl?: number;
  /** Class, when the line gives one (always `IN` for SVCB in practice). */
  class?: string;
  rrtype: SvcbRrType;
  record: SvcbRecord;
}

const TYPES: Record<string, SvcbRrType> = { SVCB: 'SVCB', TYPE64: 'SVCB', HTTPS: 'HTTPS', TYPE65: 'HTTPS' };
const CLASS = /^(?:IN|CH|HS|CS|CLASS[0-9]{1,5})$/i;

/**
 * Parses one zone-file line `owner [ttl] [class] SVCB|HTTPS rdata` (parentheses may span lines).
 * There is no `$ORIGIN`: every name is taken as absolute. Throws ReachError `INVALID_SVCB`.
 */
export function parseSvcbZoneLine(text: string): SvcbZoneRecord {
  const tokens = tokenizeRecord(text);
  const owner = tokens[0];
  if (owner === undefined || /^[ \t]/.test(text))
    throw invalidSvcb('the record must start with its owner name');
  let i = 1;
  let ttl: number | undefined;
  let klass: string | undefined;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (ttl === undefined && /^[0-9]{1,10}$/.test(t) && Number(t) <= 0x7fffffff) ttl = Number(t);
    else if (klass === undefined && CLASS.test(t)) klass = t.toUpperCase();
    else break;
  }
  const rrtype = TYPES[(tokens[i] ?? '').toUpperCase()];
  if (rrtype === undefined) throw invalidSvcb(`expected SVCB or HTTPS, got "${tokens[i] ?? ''}"`);
  const record = parseRdataTokens(tokens.slice(i + 1));
  return {
    owner: canonicalName(owner),
    ...(ttl === undefined ? {} : { ttl }),
    ...(klass === undefined ? {} : { class: klass }),
    rrtype,
    record,
  };
}

/** Prints one zone-file line: `owner ttl IN TYPE rdata` (TTL and class only when given). */
export function formatSvcbZoneLine(rr: SvcbZoneRecord): string {
  const head = [canonicalName(rr.owner)];
  if (rr.ttl !== undefined) {
    if (!Number.isInteger(rr.ttl) || rr.ttl < 0 || rr.ttl > 0x7fffffff)
      throw invalidSvcb(`TTL ${rr.ttl} is out of range`);
    head.push(String(rr.ttl));
  }
  if (rr.class !== undefined) {
    if (!CLASS.test(rr.class)) throw invalidSvcb(`class ${rr.class} is not a DNS class`);
    head.push(rr.class.toUpperCase());
  }
  if (rr.rrtype !== 'SVCB' && rr.rrtype !== 'HTTPS')
    throw invalidSvcb(`RR type ${String(rr.rrtype)} is not SVCB or HTTPS`);
  return `${head.join(' ')} ${rr.rrtype} ${formatSvcbPresentation(rr.record)}`;
}
