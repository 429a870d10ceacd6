import type { Answer, Question } from 'dns-packet';
import { err, ok, type ReachError, type Result } from '../protocol/errors.js';
import { invalidSvcb, type SvcbRecord, type SvcbRrType } from './svcb-types.js';
import { encodeSvcbRdata, safeDecodeSvcbRdata } from './svcb-wire.js';

/** RR type codes (RFC 9460 section 14.1-14.2). */
export const SVCB_TYPE_CODE = 64;
export const HTTPS_TYPE_CODE = 65;

/**
 * The `type` string dns-packet 5.x uses for each: it has no SVCB codec, so it reads type 64 as
 * `UNKNOWN_64` with raw `data`, and encodes `UNKNOWN_64` back to 64 (a name such as 'SVCB' would be
 * written as type 0, and a number throws).
 */
export const DNS_PACKET_TYPE: Readonly<Record<SvcbRrType, string>> = {
  SVCB: 'UNKNOWN_64',
  HTTPS: 'UNKNOWN_65',
};

/** The fields of a dns-packet answer this module reads (dns-packet's own types omit unknown RR types). */
export interface DnsPacketAnswerLike {
  /** dns-packet's type string, or the numeric code (as the SDK's DNS client reports it). */
  type: string | number;
  name: string;
  ttl?: number;
  class?: string;
  data?: unknown;
}

/** One decoded SVCB/HTTPS answer. */
export interface SvcbAnswer {
  /** Owner name as dns-packet writes names (no trailing dot). */
  name: string;
  ttl: number;
  class: string;
  rrtype: SvcbRrType;
  record: SvcbRecord;
}

/** The SVCB-compatible type of a dns-packet `type` value (`UNKNOWN_64`, `SVCB`, `TYPE64`, 64), if any. */
export function svcbRrTypeOf(type: unknown): SvcbRrType | undefined {
  const t = String(type).toUpperCase();
  if (t === 'UNKNOWN_64' || t === 'SVCB' || t === 'TYPE64' || t === '64') return 'SVCB';
  if (t === 'UNKNOWN_65' || t === 'HTTPS' || t === 'TYPE65' || t === '65') return 'HTTPS';
  return undefined;
}

/**
 * A dns-packet answer carrying the record as raw RDATA, ready for `dnsPacket.encode({answers})`.
 * Throws ReachError `INVALID_SVCB` when the record is invalid.
 */
export function toDnsPacketAnswer(rr: {
  name: string;
  ttl?: number;
  rrtype?: SvcbRrType;
  record: SvcbRecord;
}): Answer {
  const rrtype = rr.rrtype ?? 'SVCB';
  if (rrtype !== 'SVCB' && rrtype !== 'HTTPS')
    throw invalidSvcb(`RR type ${String(rrtype)} is not SVCB or HTTPS`);
  const ttl = rr.ttl ?? 0;
  if (!Number.isInteger(ttl) || ttl < 0 || ttl > 0x7fffffff) throw invalidSvcb(`TTL ${ttl} is out of range`);
  const answer = {
    type: DNS_PACKET_TYPE[rrtype],
    name: rr.name,
    ttl,
    class: 'IN',
    data: encodeSvcbRdata(rr.record),
  };
  return answer as unknown as Answer;
}

/** A dns-packet question for the SVCB (default) or HTTPS RRset of `name`. */
export function svcbQuestion(name: string, rrtype: SvcbRrType = 'SVCB'): Question {
  return { type: DNS_PACKET_TYPE[rrtype], name, class: 'IN' } as unknown as Question;
}

/** Decodes one dns-packet answer that must be SVCB or HTTPS; a malformed or other record is an error value. */
export function fromDnsPacketAnswer(answer: DnsPacketAnswerLike): Result<SvcbAnswer, ReachError> {
  const rrtype = svcbRrTypeOf(answer?.type);
  if (rrtype === undefined)
    return err(invalidSvcb(`answer type ${String(answer?.type)} is not SVCB or HTTPS`));
  if (!(answer.data instanceof Uint8Array)) return err(invalidSvcb('SVCB answer has no raw RDATA'));
  const decoded = safeDecodeSvcbRdata(answer.data);
  if (!decoded.ok) return decoded;
  return ok({
    name: answer.name,
    ttl: answer.ttl ?? 0,
    class: answer.class ?? 'IN',
    rrtype,
    record: decoded.value,
  });
}

/**
 * Decodes every answer of `rrtype` in a section and skips the rest. One malformed record fails the
 * whole set, as RFC 9460 section 2.2 requires of clients.
 */
export function readSvcbAnswers(
  answers: readonly DnsPacketAnswerLike[] | undefined,
  rrtype: SvcbRrType = 'SVCB',
): Result<SvcbAnswer[], ReachError> {
  const out: SvcbAnswer[] = [];
  for (const answer of answers ?? []) {
    if (svcbRrTypeOf(answer.type) !== rrtype) continue;
    const one = fromDnsPacketAnswer(answer);
    if (!one.ok) return one;
    out.push(one.value);
  }
  return ok(out);
}
